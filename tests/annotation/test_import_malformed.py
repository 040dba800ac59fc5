"""The malformed corpus (tests/fixtures/malformed, see its README): every file is refused with
an error naming its line and field, through the import service, the API upload and the admin
upload; no 500, and nothing imported. Run on SQLite and on PostgreSQL (DATABASE_URL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from annotation.kinds import ImportProblem
from annotation.models import Item, Project
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "malformed"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())


def project_for(case: dict) -> Project:
    """A project of the case's kind, holding the case's seed file when it names one."""
    project = ProjectFactory(name="malformed", kind=case["kind"], language="en")
    if case["seed"]:
        items_import(project=project, data=(CORPUS / "seeds" / case["seed"]).read_bytes())
    return project


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser("lead", "lead@example.org", "a-long-test-password")


def test_the_corpus_holds_at_least_fifty_files():
    assert len(MANIFEST) >= 50
    assert all((CORPUS / name).is_file() for name in MANIFEST)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_the_service_names_line_and_field_and_imports_nothing(name):
    case = MANIFEST[name]
    project = project_for(case)
    before = Item.objects.filter(project=project).count()
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=(CORPUS / name).read_bytes(), filename=name)
    assert (caught.value.line, caught.value.field) == (case["line"], case["field"]), str(caught.value)
    assert Item.objects.filter(project=project).count() == before


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_the_api_upload_answers_400_naming_line_and_field(name, staff):
    case = MANIFEST[name]
    project = project_for(case)
    before = Item.objects.count()
    client = APIClient()
    client.force_authenticate(staff)
    upload = SimpleUploadedFile(name, (CORPUS / name).read_bytes())
    response = client.post(f"/api/projects/{project.pk}/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400, response.content[:500]
    body = response.json()
    assert (body["line"], body["field"]) == (case["line"], case["field"]), body
    assert Item.objects.count() == before


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_the_admin_upload_shows_the_error_and_imports_nothing(name, staff):
    case = MANIFEST[name]
    project = project_for(case)
    before = Item.objects.count()
    client = Client()
    client.force_login(staff)
    upload = SimpleUploadedFile(name, (CORPUS / name).read_bytes())
    response = client.post(f"/admin/annotation/project/{project.pk}/import/", {"file": upload})
    assert response.status_code == 200  # the form again, with the error on the file field
    errors = response.context["form"].errors["file"]
    assert "Nothing was imported" in errors[0]
    if case["line"] is not None:
        assert f"ine {case['line']}" in errors[0]  # "Line 2: ..." or "line 2, field ..."
    if case["field"] is not None:
        assert f"field '{case['field']}'" in errors[0]
    assert Item.objects.count() == before


def test_a_conflict_can_be_skipped_explicitly():
    case = MANIFEST["conflict_with_existing.jsonl"]
    project = project_for(case)
    report = items_import(
        project=project, data=(CORPUS / "conflict_with_existing.jsonl").read_bytes(), skip_conflicts=True
    )
    assert (report.created, report.conflicts, report.duplicates) == (2, 1, 0)
    seed = Item.objects.get(project=project, external_id="seed1")
    assert "day 1 " in seed.payload["article"]  # the item already there is left as it was


def test_an_identical_duplicate_is_still_skipped():
    case = MANIFEST["conflict_with_existing.jsonl"]
    project = project_for(case)
    report = items_import(project=project, data=(CORPUS / "seeds" / case["seed"]).read_bytes())
    assert (report.created, report.duplicates, report.conflicts) == (0, 1, 0)
