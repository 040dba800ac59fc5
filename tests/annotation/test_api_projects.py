"""Projects, items and import through the REST API: staff only, all-or-nothing import."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import Item, Project
from tests.factories import ItemFactory, ProjectFactory, TeamFactory, UserFactory

pytestmark = pytest.mark.django_db
#: a file that carries no annotations (only a Label Studio export does) says so
NO_ANNOTATIONS = {"annotations": 0, "skipped_annotations": 0, "merged_annotations": 0, "ignored_keys": []}


@pytest.fixture
def staff_api():
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    return client


def upload(client, project, data: bytes, name: str = "dev.jsonl"):
    return client.post(
        f"/api/projects/{project.pk}/import/", {"file": SimpleUploadedFile(name, data)}, format="multipart"
    )


def without_field(data: bytes, line: int, field: str) -> bytes:
    import json

    lines = data.splitlines(keepends=True)
    record = json.loads(lines[line - 1])
    del record[field]
    lines[line - 1] = json.dumps(record).encode() + b"\r\n"
    return b"".join(lines)


@pytest.mark.parametrize("url", ["/api/projects/", "/api/items/", "/api/batches/"])
def test_researcher_endpoints_refuse_anonymous_and_non_staff(url):
    assert APIClient().get(url).status_code in (401, 403)
    client = APIClient()
    client.force_login(UserFactory(is_staff=False))
    assert client.get(url).status_code == 403


def test_staff_creates_lists_and_updates_projects(staff_api):
    team = TeamFactory()  # the deployment's only team: a superuser in no team gets it by default
    created = staff_api.post("/api/projects/", {"name": "Pilot", "kind": "recam", "language": "en"}, format="json")
    assert created.status_code == 201, created.content
    project = Project.objects.get(pk=created.json()["id"])
    assert project.team == team and created.json()["team"] == team.pk
    assert project.created_by is not None and created.json()["item_count"] == 0
    listed = staff_api.get("/api/projects/").json()
    assert [p["name"] for p in listed["results"]] == ["Pilot"]
    patched = staff_api.patch(f"/api/projects/{project.pk}/", {"name": "Pilot 2"}, format="json")
    assert patched.status_code == 200 and patched.json()["name"] == "Pilot 2"


def test_unknown_kind_is_refused(staff_api):
    response = staff_api.post("/api/projects/", {"name": "X", "kind": "nope"}, format="json")
    assert response.status_code == 400
    assert "kind" in response.json()
    assert not Project.objects.exists()


def test_resending_the_same_kind_on_update_is_accepted(staff_api):
    item = ItemFactory()
    response = staff_api.put(f"/api/projects/{item.project.pk}/", {"name": "Renamed", "kind": "recam"}, format="json")
    assert response.status_code == 200 and response.json()["item_count"] == 1


def test_import_then_reimport_creates_no_duplicates(staff_api, recam_dev_bytes, recam_test_bytes):
    project = ProjectFactory()
    first = upload(staff_api, project, recam_dev_bytes)
    assert first.status_code == 200, first.content
    assert first.json() == {"created": 20, "duplicates": 0, "total": 20, "conflicts": 0, **NO_ANNOTATIONS}
    again = upload(staff_api, project, recam_dev_bytes)
    assert again.json() == {"created": 0, "duplicates": 20, "total": 20, "conflicts": 0, **NO_ANNOTATIONS}
    upload(staff_api, project, recam_test_bytes, "test.jsonl")
    assert Item.objects.filter(project=project).count() == 25


def test_bad_record_imports_nothing_and_names_line_and_field(staff_api, recam_dev_bytes):
    project = ProjectFactory()
    response = upload(staff_api, project, without_field(recam_dev_bytes, 7, "option_3"))
    assert response.status_code == 400
    body = response.json()
    assert body["line"] == 7 and body["field"] == "option_3"
    assert "line 7" in body["detail"] and "option_3" in body["detail"]
    assert not Item.objects.exists()


@pytest.mark.parametrize(
    "data, line, words",
    [
        (b"", None, "empty"),
        (b'{"article": "x"}\n{not json\n', 1, "question"),
        (b'\n\n{"broken": \xff}\n', 3, "UTF-8"),
    ],
)
def test_import_errors_are_explained(staff_api, data, line, words):
    response = upload(staff_api, ProjectFactory(), data)
    assert response.status_code == 400
    assert response.json()["line"] == line
    assert words in response.json()["detail"]
    assert not Item.objects.exists()


def test_import_over_the_size_limit_is_refused(staff_api, recam_dev_bytes, settings):
    settings.IMPORT_MAX_BYTES = 100
    response = upload(staff_api, ProjectFactory(), recam_dev_bytes)
    assert response.status_code == 413 and "IMPORT_MAX_BYTES" in response.json()["detail"]
    assert not Item.objects.exists()


def test_a_50_mb_single_line_record_is_refused_naming_its_line(staff_api, recam_dev_bytes):
    """One runaway line (a 50 MB article) under the file limit: refused by IMPORT_MAX_RECORD_BYTES,
    the line named, nothing imported (before, it became an item every page would carry)."""
    huge = b'{"article": "' + b"x" * (50 * 1024 * 1024) + b'", "question": "a @placeholder .", '
    huge += b'"option_0": "a", "option_1": "b", "option_2": "c", "option_3": "d", "option_4": "e", "label": 0}\n'
    response = upload(staff_api, ProjectFactory(), recam_dev_bytes + huge)
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["line"] == recam_dev_bytes.count(b"\n") + 1
    assert "per record (IMPORT_MAX_RECORD_BYTES)" in body["detail"] and "52,4" in body["detail"], body
    assert not Item.objects.exists()


def test_a_record_under_the_record_limit_imports(staff_api, recam_dev_bytes, settings):
    settings.IMPORT_MAX_RECORD_BYTES = max(len(line) for line in recam_dev_bytes.splitlines()) + 100
    assert upload(staff_api, ProjectFactory(), recam_dev_bytes).status_code == 200
    settings.IMPORT_MAX_RECORD_BYTES = 100
    refused = upload(staff_api, ProjectFactory(), recam_dev_bytes)
    assert refused.status_code == 400 and refused.json()["line"] == 1


def test_items_are_read_only_and_filter_by_project(staff_api):
    mine, other = ItemFactory(), ItemFactory()
    listed = staff_api.get(f"/api/items/?project={mine.project.pk}").json()
    assert [i["external_id"] for i in listed["results"]] == [mine.external_id]
    assert staff_api.get(f"/api/items/{other.pk}/").json()["payload"] == other.payload
    assert staff_api.delete(f"/api/items/{mine.pk}/").status_code == 405
    assert staff_api.get("/api/items/?project=abc").status_code == 400
