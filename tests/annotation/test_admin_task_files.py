"""A project made from a task file in the admin: uploaded or pasted, its problems shown on the
field one a line, the file shown on the project's page, and changes checked like the service's."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.kinds import TASK_FILE_KIND
from annotation.models import Project
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import ItemFactory, TeamFactory

pytestmark = pytest.mark.django_db

ADD = "admin:annotation_project_add"


def good_file() -> str:
    return data_file("task_files", "sentiment.yaml").read_text()


def without_title(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("title:")) + "\n"


@pytest.fixture
def team(admin_user):
    return TeamFactory(members=[admin_user])


def form_data(team, **extra):
    return {"name": "From a file", "team": team.pk, "kind": "", "language": "en", "settings": "{}", **extra}


def field_errors(response, field: str) -> list[str]:
    return list(response.context["adminform"].form.errors.get(field, []))


def test_a_pasted_task_file_makes_a_project_of_the_files_kind(admin_client, admin_user, team):
    response = admin_client.post(reverse(ADD), form_data(team, task_file_text=good_file()))
    assert response.status_code == 302, response.content.decode()[:3000]
    project = Project.objects.get()
    assert project.kind == TASK_FILE_KIND and project.task_file == good_file()
    assert project.created_by == admin_user


def test_an_uploaded_task_file_makes_a_project(admin_client, team):
    upload = SimpleUploadedFile("sentiment.yaml", good_file().encode())
    response = admin_client.post(reverse(ADD), form_data(team, task_file_upload=upload))
    assert response.status_code == 302
    assert Project.objects.get().task_file == good_file()


def test_the_files_problems_are_shown_on_its_field_and_nothing_is_made(admin_client, team):
    response = admin_client.post(reverse(ADD), form_data(team, task_file_text=without_title(good_file())))
    assert response.status_code == 200
    errors = field_errors(response, "task_file_text")
    assert errors and any("title" in e for e in errors)
    assert not Project.objects.exists()
    html = response.content.decode()
    field_row = html.split('name="task_file_text"')[0].rsplit("form-row", 1)[-1]
    assert "errorlist" in field_row and "title" in field_row  # in place, above the text area


def test_an_uploaded_files_problems_are_shown_on_the_upload_field(admin_client, team):
    upload = SimpleUploadedFile("bad.yaml", without_title(good_file()).encode())
    response = admin_client.post(reverse(ADD), form_data(team, task_file_upload=upload))
    assert response.status_code == 200 and any("title" in e for e in field_errors(response, "task_file_upload"))
    assert not Project.objects.exists()


def test_a_file_not_utf8_is_named(admin_client, team):
    upload = SimpleUploadedFile("bad.yaml", b"title: \xff\xfe\n")
    response = admin_client.post(reverse(ADD), form_data(team, task_file_upload=upload))
    assert any("UTF-8" in e for e in field_errors(response, "task_file_upload"))


def test_neither_kind_nor_file_asks_for_one(admin_client, team):
    response = admin_client.post(reverse(ADD), form_data(team))
    assert response.status_code == 200 and field_errors(response, "kind")
    assert not Project.objects.exists()


def test_both_upload_and_paste_is_refused(admin_client, team):
    upload = SimpleUploadedFile("sentiment.yaml", good_file().encode())
    response = admin_client.post(reverse(ADD), form_data(team, task_file_upload=upload, task_file_text=good_file()))
    assert response.status_code == 200 and field_errors(response, "task_file_upload")
    assert not Project.objects.exists()


def test_the_project_page_shows_the_task_file(admin_client, team):
    project = project_create(name="P", team=team, task_file=good_file())
    html = admin_client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert "task-file" in html and "Sentiment of product reviews" in html


def change(admin_client, project, text, **extra):
    url = reverse("admin:annotation_project_change", args=[project.pk])
    data = {"name": project.name, "team": project.team_id, "language": "en", "settings": "{}", "instructions": ""}
    return admin_client.post(url, {**data, "task_file_text": text, **extra})


def test_a_change_of_words_is_saved_through_the_service(admin_client, team):
    project = project_create(name="P", team=team, task_file=good_file())
    new = good_file().replace("prompt: How does the writer feel", "prompt: How does the author feel")
    response = change(admin_client, project, new.replace("\n", "\r\n"))  # as a browser posts a text area
    assert response.status_code == 302, response.content.decode()[:3000]
    project.refresh_from_db()
    assert project.task_file == new


def test_posting_the_file_unchanged_changes_nothing(admin_client, team):
    project = project_create(name="P", team=team, task_file=good_file())
    assert change(admin_client, project, good_file(), name="Renamed").status_code == 302
    project.refresh_from_db()
    assert project.name == "Renamed" and project.task_file == good_file()


def test_a_change_beyond_words_after_annotations_is_refused_on_the_field(admin_client, team):
    project = project_create(name="P", team=team, task_file=good_file())
    item = ItemFactory(project=project, payload={"text": "Great.", "review_id": "r1"})
    save_answer_for(item)
    new = good_file().replace("          - {value: neutral, label: Neutral}\n", "")
    response = change(admin_client, project, new)
    assert response.status_code == 200 and any("words" in e for e in field_errors(response, "task_file_text"))
    project.refresh_from_db()
    assert project.task_file == good_file()


def test_an_invalid_change_is_refused_on_the_field(admin_client, team):
    project = project_create(name="P", team=team, task_file=good_file())
    response = change(admin_client, project, without_title(good_file()))
    assert response.status_code == 200 and any("title" in e for e in field_errors(response, "task_file_text"))


def save_answer_for(item) -> None:
    """One annotation of `item`, through the services, so the project 'has annotations'."""
    from annotation.services.assignments import annotator_join_via_invite, assignment_next
    from annotation.services.batches import batch_create, invite_link_create

    batch = batch_create(project=item.project, name="b", items_per_unit=1)
    annotator = annotator_join_via_invite(invite=invite_link_create(batch=batch))
    assignment = assignment_next(annotator=annotator, batch=batch)
    assert assignment.responses.exists()
