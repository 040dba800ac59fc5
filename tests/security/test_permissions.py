"""Issue 20 item 2: `is_staff` alone opens nothing outside the admin either. Every API operation
(read from the OpenAPI schema, so a new endpoint is walked without touching this file) and every
quality URL (read from quality.urls) as a staff user without permissions, with view permissions
only, and as a superuser."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from quality import urls as quality_urls
from tests.security.conftest import World

pytestmark = pytest.mark.django_db

READS = ("GET", "HEAD", "OPTIONS")
#: POST operations that only compute an answer from what the caller may read
READS_BY_POST = {"projects_scores_create"}  # a scorer the kind lacks answers 404
#: the annotator's own endpoints (key authentication only; tests/annotation/test_api_me.py)
ANNOTATOR_ONLY = ("/api/me/",)
QUERY = {"dataset": "raw", "format": "csv"}
QUALITY_WRITES = {"run", "export-start", "hub-export-start", "item-decide"}
QUALITY_READS = {"report", "plot", "run_status", "report_download", "export", "export-download", "item"}


def api_operations() -> list[tuple[str, str, str, list[str]]]:
    """(method, path template, operationId, query parameter names) of every documented operation."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (method.upper(), path, op["operationId"], [p["name"] for p in op.get("parameters", []) if p["in"] == "query"])
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
    ]


def api_url(world: World, path: str, query: list[str]) -> str:
    """The template filled with ids of real objects; a resource this does not know fails loudly."""
    by_resource = {
        "projects": world.project.pk,
        "items": world.item.pk,
        "batches": world.batch.pk,
        "quality-runs": world.run.pk,
        "exports": world.job.pk,
    }
    resource = path.split("/")[2]

    def fill(match: re.Match) -> str:
        if match.group(1) == "project_id":
            return str(world.project.pk)
        assert resource in by_resource, f"no object for {path}: add one to the world fixture"
        return str(by_resource[resource])

    url = re.sub(r"\{(\w+)\}", fill, path)
    params = "&".join(f"{name}={QUERY[name]}" for name in query if name in QUERY)
    return f"{url}?{params}" if params else url


def call_api(user, method: str, url: str) -> int:
    client = APIClient()
    client.force_authenticate(user)
    return client.generic(method, url, "{}", content_type="application/json").status_code


def researcher_operations():
    ops = [op for op in api_operations() if not op[1].startswith(ANNOTATOR_ONLY)]
    return sorted(ops, key=lambda op: op[0] == "DELETE")  # deleting the project last


def test_the_walk_covers_every_resource_and_method():
    ops = researcher_operations()
    assert len(ops) >= 25
    assert {op[0] for op in ops} == {"GET", "POST", "PUT", "PATCH", "DELETE"}


def test_staff_without_permissions_gets_403_from_every_api_operation(world, no_perms):
    answers = {(m, p): call_api(no_perms, m, api_url(world, p, q)) for m, p, _, q in researcher_operations()}
    assert {key: code for key, code in answers.items() if code != 403} == {}


def test_view_permissions_read_everything_and_write_nothing(world, viewer):
    wrong = {}
    for method, path, op_id, query in researcher_operations():
        code = call_api(viewer, method, api_url(world, path, query))
        reads = method in READS or op_id in READS_BY_POST
        if code >= 500 or (reads and code == 403) or (method in READS and code != 200) or (not reads and code != 403):
            wrong[(method, path)] = code
    assert wrong == {}


def test_a_superuser_keeps_full_access(world, superuser):
    answers = {(m, p): call_api(superuser, m, api_url(world, p, q)) for m, p, _, q in researcher_operations()}
    assert {key: code for key, code in answers.items() if code in (401, 403) or code >= 500} == {}
    assert answers[("GET", "/api/batches/{id}/invites/")] == 200
    assert answers[("DELETE", "/api/projects/{id}/")] == 204


def test_annotator_endpoints_keep_working_with_the_key(world):
    annotator = world.project.annotators.first()
    client = APIClient(HTTP_AUTHORIZATION=f"Annotator {annotator.access_key}")
    assert client.get("/api/me/").status_code == 200
    assert client.get("/api/me/responses/").status_code == 200
    assert client.get("/api/projects/").status_code == 403


def quality_pages(world: World) -> dict[str, str]:
    """Every named quality URL, reversed with real objects; a new one without kwargs here fails."""
    values = {
        "project_id": world.project.pk,
        "run_id": world.run.pk,
        "name": world.plot.name,
        "dataset": "raw",
        "fmt": "csv",
        "job_id": world.job.pk,
        "item_id": world.item.pk,
    }
    pages = {}
    for pattern in quality_urls.urlpatterns:
        names = re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))
        pages[pattern.name] = reverse(f"quality:{pattern.name}", kwargs={n: values[n] for n in names})
    assert set(pages) == QUALITY_READS | QUALITY_WRITES, "classify the new quality URL as a read or a write"
    return pages


def test_staff_without_permissions_gets_403_from_every_quality_url(world, no_perms, client):
    client.force_login(no_perms)
    answers = {
        (method, name): getattr(client, method)(url).status_code
        for name, url in quality_pages(world).items()
        for method in ("get", "post")
    }
    assert {key: code for key, code in answers.items() if code != 403} == {}


def test_quality_view_permission_reads_and_starts_nothing(world, viewer, client):
    client.force_login(viewer)
    pages = quality_pages(world)
    assert {name: client.get(pages[name]).status_code for name in QUALITY_READS} == dict.fromkeys(QUALITY_READS, 200)
    assert {name: client.post(pages[name]).status_code for name in QUALITY_WRITES} == dict.fromkeys(QUALITY_WRITES, 403)
    assert world.project.quality_runs.count() == 1 and world.project.export_jobs.count() == 1


def test_quality_add_permissions_start_runs_and_exports(world, client):
    from tests.security.conftest import staff_with

    client.force_login(
        staff_with("view_qualityrun", "add_qualityrun", "view_exportjob", "add_exportjob", teams=[world.project.team])
    )
    pages = quality_pages(world)
    assert client.post(pages["run"]).status_code == 302
    assert client.post(pages["export-start"], {"dataset": "raw", "format": "csv"}).status_code == 302
    assert world.project.quality_runs.count() == 2 and world.project.export_jobs.count() == 2


def test_a_superuser_reads_every_quality_page(world, superuser, client):
    client.force_login(superuser)
    pages = quality_pages(world)
    assert {name: client.get(pages[name]).status_code for name in QUALITY_READS} == dict.fromkeys(QUALITY_READS, 200)
