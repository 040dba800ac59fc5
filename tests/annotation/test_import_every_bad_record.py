"""A bad import names each bad record by its line and its id (where the file gives one) and
reports every bad record at once, up to 20 with a count of the rest; nothing is imported."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.kinds import ImportProblem, ImportProblems
from annotation.models import Item
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import TeamFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    task = data_file("task_files", "sentiment.yaml").read_text(encoding="utf-8")
    return project_create(name="Reviews", team=TeamFactory(), task_file=task)


def jsonl(records: list[dict]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode() + b"\n"


def test_every_bad_record_is_named_with_its_line_and_id(project):
    records = [
        {"review_id": "r1", "text": "Good."},
        {"review_id": "r2", "text": ""},
        {"review_id": "r3", "text": "Fine."},
        {"text": "No id at all."},
        {"review_id": "r1", "text": "The first id again."},
        {"review_id": "r6"},
    ]
    with pytest.raises(ImportProblems) as caught:
        items_import(project=project, data=jsonl(records), filename="r.jsonl")
    assert str(caught.value).splitlines() == [
        "4 bad records:",
        "line 2, record 'r2', field 'text': missing or empty (the task file requires it)",
        "line 4, field 'review_id': missing, or not a string or an integer",
        "line 5, record 'r1', field 'review_id': the id 'r1' is used twice in this file",
        "line 6, record 'r6', field 'text': missing or empty (the task file requires it)",
    ]
    assert (caught.value.line, caught.value.record, caught.value.field) == (2, "r2", "text")  # the first one's
    assert not Item.objects.filter(project=project).exists()  # atomic


def test_one_bad_record_reads_as_before_with_its_id(project):
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=jsonl([{"review_id": "r1", "text": " "}]), filename="r.jsonl")
    assert not isinstance(caught.value, ImportProblems)
    assert str(caught.value) == "line 1, record 'r1', field 'text': missing or empty (the task file requires it)"


def test_twenty_are_listed_and_the_rest_counted(project):
    records = [{"review_id": f"r{n}", "text": "" if n % 2 else "ok"} for n in range(1, 61)]  # 30 bad
    with pytest.raises(ImportProblems) as caught:
        items_import(project=project, data=jsonl(records), filename="r.jsonl")
    lines = str(caught.value).splitlines()
    assert lines[0] == "30 bad records:" and len(lines) == 1 + 20 + 1
    assert lines[1].startswith("line 1, record 'r1',") and lines[20].startswith("line 39, record 'r39',")
    assert lines[-1] == "and 10 more bad records"
    assert not Item.objects.filter(project=project).exists()


def test_the_api_answers_with_every_bad_record(project):
    from tests.annotation.test_api_projects import upload

    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    answer = upload(client, project, jsonl([{"review_id": "a", "text": ""}, {"review_id": "b", "text": ""}]))
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert "record 'a'" in body["detail"] and "record 'b'" in body["detail"] and body["line"] == 1


def test_the_admin_lists_every_bad_record_apart(client, project):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    url = reverse("admin:annotation_project_import", args=[project.pk])
    bad = jsonl([{"review_id": "a", "text": ""}, {"review_id": "b", "text": ""}])
    page = client.post(url, {"file": SimpleUploadedFile("r.jsonl", bad)}).content.decode()
    assert "<li>2 bad records:</li>" in page
    assert "<li>line 1, record &#x27;a&#x27;, field &#x27;text&#x27;: missing or empty" in page
    assert (
        "record &#x27;b&#x27;, field &#x27;text&#x27;: missing or empty (the task file requires it). Nothing was"
        in page
    )
