"""The researcher's preview: every page of a project's task on one item, read-only, for staff of
the project's team only; a typed-in record is read by the kind's own parse."""

import json

import pytest
from django.urls import reverse

from annotation.kinds import kind_of
from annotation.models import Item, Response
from tests.factories import RECAM_PAYLOAD, ItemFactory, ProjectFactory, TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db


def preview_url(project) -> str:
    return reverse("surveys:preview", args=[project.pk])


@pytest.fixture
def project():
    return ProjectFactory(name="Preview me")


@pytest.fixture
def researcher(project):
    return staff_with("view_project", teams=[project.team])


def page_ids(html: str, project) -> list[str]:
    kind = kind_of(project)
    return [page.slug for page in kind.pages(RECAM_PAYLOAD, {}) if f'id="preview-page-{page.slug}"' in html]


def test_every_page_of_the_first_item_is_rendered_read_only(client, project, researcher):
    first = ItemFactory(project=project, external_id="first")
    ItemFactory(
        project=project, external_id="second", payload={**RECAM_PAYLOAD, "question": "Zzsecond item @placeholder ."}
    )
    client.force_login(researcher)
    response = client.get(preview_url(project))
    assert response.status_code == 200
    html = response.content.decode()
    expected = [page.slug for page in kind_of(project).pages(first.payload, {})]
    assert expected and page_ids(html, project) == expected
    assert 'class="page preview-fields"' in html  # the first page at least, as annotators get it
    assert "first imported item, first" in html and "Zzsecond" not in html
    assert 'name="response"' not in html and 'name="shown"' not in html  # no page form that could save


def test_answers_tried_show_the_pages_that_read_them_and_save_nothing(client, project, researcher):
    ItemFactory(project=project)
    client.force_login(researcher)
    before = client.get(preview_url(project)).content.decode()
    article = RECAM_PAYLOAD["article"]
    assert 'class="msg info waits"' in before and article not in before  # the passage waits for the first answer
    first = kind_of(project).pages(RECAM_PAYLOAD, {})[0].slug
    after = client.post(preview_url(project), {f"{first}-choice": "1", "answers": "1"}).content.decode()
    assert article in after  # revealed once the first page is answered, as for an annotator
    assert not Response.objects.exists()


def test_a_typed_record_is_previewed_and_nothing_is_saved(client, project, researcher):
    client.force_login(researcher)
    record = {**RECAM_PAYLOAD, "question": "Typed in by the researcher @placeholder ."}
    response = client.post(preview_url(project), {"record": json.dumps(record, indent=2)})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Typed in by the researcher" in html and "the record you typed" in html
    assert page_ids(html, project)
    assert not Item.objects.exists() and not Response.objects.exists()


def test_a_record_the_kind_cannot_read_is_refused_with_the_reason(client, project, researcher):
    client.force_login(researcher)
    record = {k: v for k, v in RECAM_PAYLOAD.items() if k != "article"}
    response = client.post(preview_url(project), {"record": json.dumps(record)})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="record-error"' in html and "article" in html.split('id="record-error"')[1]
    assert 'class="preview-page"' not in html


def test_without_items_the_page_asks_for_a_record(client, project, researcher):
    client.force_login(researcher)
    html = client.get(preview_url(project)).content.decode()
    assert 'id="no-item"' in html and 'class="preview-page"' not in html


def test_another_teams_researcher_gets_404(client, project):
    client.force_login(staff_with("view_project", teams=[TeamFactory()]))
    assert client.get(preview_url(project)).status_code == 404
    assert client.post(preview_url(project), {"record": json.dumps(RECAM_PAYLOAD)}).status_code == 404


def test_staff_without_the_view_permission_gets_403_and_anonymous_the_login(client, project):
    client.force_login(staff_with(teams=[project.team]))
    assert client.get(preview_url(project)).status_code == 403
    client.logout()
    response = client.get(preview_url(project))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_project_page_links_the_preview(admin_client, project):
    html = admin_client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert preview_url(project) in html


def test_a_task_files_pages_are_all_shown_on_a_typed_record_conditional_ones_too(client):
    from annotation.services.projects import project_create
    from tests.conftest import data_file

    team = TeamFactory()
    project = project_create(name="File", team=team, task_file=data_file("task_files", "two_pages.yaml").read_text())
    client.force_login(staff_with("view_project", teams=[team]))
    response = client.post(preview_url(project), {"record": json.dumps({"id": "r1", "text": "A fine little text."})})
    assert response.status_code == 200, response.content.decode()[:2000]
    html = response.content.decode()
    assert 'id="preview-page-first"' in html and 'id="preview-page-why"' in html  # the condition is undecided
    assert "A fine little text." in html and "Is the text positive?" in html
    missing = client.post(preview_url(project), {"record": json.dumps({"id": "r2"})})
    assert missing.status_code == 400 and "text" in missing.content.decode().split('id="record-error"')[1]
