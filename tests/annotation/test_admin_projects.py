"""The researcher's admin: pages load, projects are made by the service, import is all or nothing."""

import json

import pytest
from django.apps import apps
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Item, Project
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create, invite_link_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, TeamFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def project_with_work():
    project = ProjectFactory()
    ItemFactory.create_batch(3, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2)
    invite_link_create(batch=batch)
    assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    return project


def import_url(project) -> str:
    return reverse("admin:annotation_project_import", args=[project.pk])


@pytest.mark.parametrize("model", ["project", "item", "batch", "invitelink", "annotator", "assignment", "response"])
def test_every_page_loads_for_staff(admin_client, project_with_work, model):
    changelist = admin_client.get(reverse(f"admin:annotation_{model}_changelist"))
    assert changelist.status_code == 200
    instance = apps.get_model("annotation", model).objects.first()
    assert admin_client.get(reverse(f"admin:annotation_{model}_change", args=[instance.pk])).status_code == 200


def test_non_staff_cannot_reach_the_import_page(client):
    client.force_login(UserFactory(is_staff=False))
    response = client.get(import_url(ProjectFactory()))
    assert response.status_code == 302 and "login" in response["Location"]


def test_project_added_in_admin_goes_through_the_service(admin_client, admin_user):
    team = TeamFactory(members=[admin_user])
    response = admin_client.post(
        reverse("admin:annotation_project_add"),
        {"name": "Pilot", "team": team.pk, "kind": "recam", "language": "en", "instructions": "", "settings": "{}"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    project = Project.objects.get()
    assert project.created_by == admin_user and project.team == team
    assert response["Location"] == reverse("admin:annotation_project_changelist")


def test_misspelt_setting_is_named(admin_client):
    response = admin_client.post(
        reverse("admin:annotation_project_add"),
        {"name": "Pilot", "kind": "recam", "language": "en", "settings": json.dumps({"min_acuracy": 0.5})},
    )
    assert response.status_code == 200 and "min_acuracy" in response.content.decode()
    assert not Project.objects.exists()


def test_project_page_links_import_and_items(admin_client):
    project = ProjectFactory()
    html = admin_client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert import_url(project) in html
    listing = admin_client.get(reverse("admin:annotation_project_changelist")).content.decode()
    assert import_url(project) in listing


def test_import_page_imports_and_reports_counts(admin_client, recam_dev_bytes):
    project = ProjectFactory()
    assert admin_client.get(import_url(project)).status_code == 200
    response = admin_client.post(import_url(project), {"file": SimpleUploadedFile("dev.jsonl", recam_dev_bytes)})
    assert response.status_code == 302
    text = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert "Imported 20 new items" in text and "0 were already there" in text
    again = admin_client.post(import_url(project), {"file": SimpleUploadedFile("dev.jsonl", recam_dev_bytes)})
    assert "Imported 0 new items" in " ".join(str(m) for m in get_messages(again.wsgi_request))
    assert Item.objects.filter(project=project).count() == 20


def test_import_error_names_line_and_field_and_imports_nothing(admin_client, recam_dev_bytes):
    project = ProjectFactory()
    lines = recam_dev_bytes.splitlines(keepends=True)
    record = json.loads(lines[4])
    record["label"] = 7
    lines[4] = json.dumps(record).encode() + b"\r\n"
    response = admin_client.post(import_url(project), {"file": SimpleUploadedFile("bad.jsonl", b"".join(lines))})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Line 5" in html and "label" in html and "Nothing was imported" in html
    assert not Item.objects.exists()


def test_empty_file_is_explained(admin_client):
    project = ProjectFactory()
    response = admin_client.post(import_url(project), {"file": SimpleUploadedFile("empty.jsonl", b"")})
    assert "empty" in response.content.decode()
    assert not Item.objects.exists()
