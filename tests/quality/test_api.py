"""The quality REST API: staff only, runs through the task, exports streamed, schema correct."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from quality.models import QualityRun
from quality.services.runs import quality_run_create

pytestmark = pytest.mark.django_db


def urls(project_id: int, run_id: int = 1) -> list[tuple[str, str]]:
    return [
        ("get", reverse("api-project-quality-runs", args=[project_id])),
        ("post", reverse("api-project-quality-runs", args=[project_id])),
        ("get", reverse("api-quality-run-detail", args=[run_id])),
        ("get", reverse("api-project-export", args=[project_id]) + "?dataset=raw&format=csv"),
    ]


@pytest.fixture
def api(staff) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff)
    return client


def test_staff_only(annotated, django_user_model):
    run = quality_run_create(project=annotated.project)
    anonymous = APIClient()
    someone = APIClient()
    someone.force_authenticate(django_user_model.objects.create_user("plain", password="pw"))
    annotator = APIClient(HTTP_AUTHORIZATION=f"Annotator {annotated.annotators['good_a'].access_key}")
    for client in (anonymous, someone, annotator):
        for method, url in urls(annotated.project.pk, run.pk):
            assert getattr(client, method)(url).status_code in (401, 403), (method, url)
    assert QualityRun.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_post_runs_through_the_task_and_returns_the_run(recam_dev_bytes, django_user_model):
    from tests.quality.conftest import build_annotated_project

    project = build_annotated_project(recam_dev_bytes).project
    staff = django_user_model.objects.create_user("boss", password="pw", is_staff=True, is_superuser=True)
    client = APIClient()
    client.force_authenticate(staff)
    response = client.post(reverse("api-project-quality-runs", args=[project.pk]), {}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "done" and body["created_by"] == "boss"
    assert body["counts"] == {"responses": 60, "responses_kept": 39, "annotators": 4, "annotators_kept": 3, "items": 20}
    assert body["summary"]["dropped_low_accuracy_annotator"] == 10
    assert body["parameters"]["min_accuracy"] == 0.4


def test_post_with_settings_and_unknown_setting(api, annotated, django_capture_on_commit_callbacks):
    url = reverse("api-project-quality-runs", args=[annotated.project.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(url, {"settings": {"min_accuracy": 0.96}}, format="json")
    assert response.status_code == 202  # in the test transaction the task runs at commit, after the answer
    run = QualityRun.objects.get(pk=response.json()["id"])
    assert run.status == "done" and run.parameters["min_accuracy"] == 0.96
    bad = api.post(url, {"settings": {"min_acuracy": 0.5}}, format="json")
    assert bad.status_code == 400 and "min_accuracy" in json.dumps(bad.json())


def test_list_and_detail(api, annotated):
    first = quality_run_create(project=annotated.project)
    second = quality_run_create(project=annotated.project, overrides={"require_spans": False})
    listing = api.get(reverse("api-project-quality-runs", args=[annotated.project.pk])).json()
    assert listing["count"] == 2 and [r["id"] for r in listing["results"]] == [second.pk, first.pk]
    detail = api.get(reverse("api-quality-run-detail", args=[first.pk])).json()
    assert detail["counts"]["responses_kept"] == 39 and detail["project"] == annotated.project.pk
    assert api.get(reverse("api-quality-run-detail", args=[999999])).status_code == 404
    assert api.get(reverse("api-project-quality-runs", args=[999999])).status_code == 404


def test_export_streams_csv_and_jsonl(api, annotated):
    url = reverse("api-project-export", args=[annotated.project.pk])
    response = api.get(url, {"dataset": "raw", "format": "csv"})
    assert response.status_code == 200 and isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"].startswith("text/csv")
    assert re.fullmatch(
        r'attachment; filename="recam-pilot-raw-\d{4}-\d{2}-\d{2}\.csv"', response["Content-Disposition"]
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    assert len(rows) == 60
    response = api.get(url, {"dataset": "items", "format": "jsonl"})
    assert isinstance(response, StreamingHttpResponse) and response["Content-Type"].startswith("application/x-ndjson")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 20 and list(json.loads(lines[0]))[0] == "article"


def test_export_errors(api, annotated):
    url = reverse("api-project-export", args=[annotated.project.pk])
    clean = api.get(url, {"dataset": "clean", "format": "csv"})
    assert clean.status_code == 409 and "quality run" in clean.json()["detail"]
    bad = api.get(url, {"dataset": "everything", "format": "csv"})
    assert bad.status_code == 400 and "dataset" in bad.json()
    assert api.get(url, {"dataset": "raw", "format": "xlsx"}).status_code == 400
    assert api.get(reverse("api-project-export", args=[999999])).status_code == 404


@pytest.mark.parametrize("query", ["format=&dataset=raw", "dataset=&format=csv", "dataset=&format="])
def test_export_refuses_an_empty_format_or_dataset(api, annotated, query):
    """The schema lists their choices; an empty value is none of them (not the default)."""
    url = reverse("api-project-export", args=[annotated.project.pk])
    response = api.get(f"{url}?{query}")
    assert response.status_code == 400, response
    empty = {pair.split("=")[0] for pair in query.split("&") if pair.endswith("=")}
    assert set(response.json()) == empty and all("blank" in response.json()[name][0] for name in empty)


def test_openapi_schema_describes_the_endpoints():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = schema["paths"]
    runs = paths["/api/projects/{project_id}/quality-runs/"]
    assert set(runs) >= {"get", "post"}
    assert set(runs["post"]["responses"]) == {"201", "202", "400", "403", "404", "406", "409", "413", "415"}
    assert "/api/quality-runs/{id}/" in paths
    export = paths["/api/projects/{project_id}/export/"]["get"]
    params = {p["name"]: p for p in export["parameters"]}
    assert params["dataset"]["schema"]["enum"][:3] == ["raw", "clean", "items"]
    assert {"kit_gold", "kit_data"} <= set(params["dataset"]["schema"]["enum"])
    assert params["format"]["schema"]["enum"] == ["csv", "tsv", "jsonl", "json"]
    assert "label_studio" in params["dataset"]["schema"]["enum"]
    assert set(export["responses"]["200"]["content"]) == {
        "text/csv",
        "text/tab-separated-values",
        "application/x-ndjson",
        "application/json",
    }
    score = paths["/api/projects/{project_id}/scores/{scorer}/"]["post"]
    assert set(score["requestBody"]["content"]) == {"multipart/form-data"}
    assert set(score["responses"]) == {"200", "400", "403", "404", "406", "409", "413", "415"}
    scorer = next(p for p in score["parameters"] if p["name"] == "scorer")
    assert {"table1", "semeval2020", "ccl2022"} <= set(scorer["schema"]["enum"])
    assert "semeval2020" in score["description"] and "ccl2022" in score["description"]
    assert "get" in paths["/api/projects/{project_id}/scores/"]
    run_schema = schema["components"]["schemas"]["QualityRun"]["properties"]
    assert {"counts", "summary", "status"} <= set(run_schema)
