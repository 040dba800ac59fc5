"""The error answers the schema documents, each pinned by a plain request (schemathesis finds
them by chance; these say which request gives which answer, on both databases)."""

from __future__ import annotations

import base64

import pytest
from rest_framework.test import APIClient

from annotation.models import Project
from tests.factories import ItemFactory, ProjectFactory, TeamFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = APIClient()
    user = UserFactory(is_staff=True, is_superuser=True)
    user.teams.add(TeamFactory())  # new projects go to the user's only team
    client.force_authenticate(user)
    return client


def test_an_api_url_no_route_matches_is_a_json_404_and_other_urls_keep_the_html_page(client):
    for path in ("/api/quality-runs/abc/", "/api/projects/1.5/", "/api/nothing-here/"):
        response = APIClient().get(path)
        assert response.status_code == 404 and response.json() == {"detail": "Not found."}, path
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_a_body_over_the_upload_limit_is_a_json_413(staff, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = staff.post("/api/projects/", {"name": "x" * 2000, "kind": "recam"}, format="json")
    assert response.status_code == 413 and "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["detail"]
    assert not Project.objects.exists()


@pytest.mark.parametrize("credentials", [b"lead\x00:pw", b"lead:p\x00w", b"\xff\xfe:pw"])
def test_basic_credentials_that_cannot_be_real_are_a_403_not_a_500(credentials):
    header = "Basic " + base64.b64encode(credentials).decode()
    response = APIClient().get("/api/projects/", HTTP_AUTHORIZATION=header)
    assert response.status_code == 403 and "detail" in response.json()


@pytest.mark.parametrize("key", ["abc\x00def", "a" * 65, "not/a-key", "\u00e9t\u00e9"])
def test_annotator_keys_that_cannot_be_real_are_a_401_not_a_500(key):
    response = APIClient().get("/api/me/", HTTP_AUTHORIZATION=f"Annotator {key}")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Annotator"


@pytest.mark.parametrize("query", ["limit=0", "limit=1001", "limit=x", "offset=-1", "offset=9223372036854775808"])
def test_paging_out_of_bounds_is_a_400_naming_the_parameter(staff, query):
    response = staff.get(f"/api/projects/?{query}")
    assert response.status_code == 400 and query.split("=")[0] in response.json()


def test_paging_within_bounds_pages(staff):
    ProjectFactory.create_batch(3)
    page = staff.get("/api/projects/?limit=2&offset=1").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["previous"] and not page["next"]


def test_an_external_id_filter_with_nul_is_a_400(staff):
    response = staff.get("/api/items/", {"external_id": "a\x00b"})
    assert response.status_code == 400 and "external_id" in response.json()


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": 5, "kind": "recam"}, "name"),
        ({"name": "x", "kind": "recam", "language": 1}, "language"),
        ({"name": "x\x00y", "kind": "recam"}, "name"),
        ({"name": "x", "kind": "recam", "settings": []}, "settings"),
        ({"name": "x", "kind": "recam", "settings": {"min_acuracy": 0.5}}, "settings"),
        ({"name": "x", "kind": "recam", "settings": {"min_accuracy": "high"}}, "settings"),
        ({"name": "x", "kind": "recam", "settings": {"require_spans": 1}}, "settings"),
    ],
)
def test_a_json_body_is_held_to_its_schema_types(staff, body, field):
    response = staff.post("/api/projects/", body, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Project.objects.exists()


def test_a_form_body_is_refused_where_the_schema_documents_json_only(staff):
    response = staff.post("/api/projects/", {"name": "x", "kind": "recam"}, format="multipart")
    assert response.status_code == 415


def test_settings_of_another_kind_are_a_409(staff):
    response = staff.post(
        "/api/projects/", {"name": "x", "kind": "recam", "settings": {"min_seconds": 60.0}}, format="json"
    )
    assert response.status_code == 409 and "min_seconds" in response.json()["detail"]
    good = staff.post("/api/projects/", {"name": "x", "kind": "scde", "settings": {"min_seconds": 60}}, format="json")
    assert good.status_code == 201 and good.json()["settings"] == {"min_seconds": 60}


def test_changing_the_kind_of_a_project_with_items_is_a_409(staff):
    project = ItemFactory().project
    response = staff.patch(f"/api/projects/{project.pk}/", {"kind": "scde"}, format="json")
    assert response.status_code == 409 and "kind" in response.json()["detail"]


def test_a_batch_naming_a_project_that_does_not_exist_is_a_404(staff):
    response = staff.post("/api/batches/", {"project": 2**63 - 1, "name": "b"}, format="json")
    assert response.status_code == 404 and "project" in response.json()["detail"]
    wrong = staff.post("/api/batches/", {"project": "1", "name": "b"}, format="json")
    assert wrong.status_code == 400 and "project" in wrong.json()


def test_every_operation_documents_the_errors_it_can_answer():
    schema = APIClient().get("/api/schema/?format=json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert "403" in codes, (method, path)
            assert "404" in codes or "{" not in path, (method, path)
            if "requestBody" in operation:
                assert {"400", "413", "415"} <= codes, (method, path)
            if path.startswith("/api/me/"):
                assert "401" in codes, (method, path)


def test_the_api_answers_json_only_and_a_406_to_asking_for_html(staff):
    assert staff.get("/api/projects/", HTTP_ACCEPT="text/html").status_code == 406
    assert staff.get("/api/projects/", HTTP_ACCEPT="text/html,*/*").json()["results"] == []
    assert APIClient().get("/api/docs/").status_code == 200  # the interactive page stays
