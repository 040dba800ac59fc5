"""Export jobs in the REST API: create -> status -> download, errors, staff only, and the schema."""

from __future__ import annotations

import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from quality.models import ExportJob
from tests.quality.helpers import bulk_responses

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def export_root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"


@pytest.fixture
def api(staff) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff)
    return client


def test_create_status_download(api, django_capture_on_commit_callbacks):
    project = bulk_responses(12)
    url = reverse("api-project-export-jobs", args=[project.pk])
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(url, {"dataset": "raw", "format": "tsv", "spreadsheet_safe": True}, format="json")
    assert created.status_code == 202, created.content  # the hand-off ran after the answer (test transaction)
    job_id = created.json()["id"]
    status = api.get(reverse("api-export-job-detail", args=[job_id])).json()
    assert (status["status"], status["rows_written"], status["rows_total"], status["progress"]) == ("done", 12, 12, 1.0)
    assert status["cells"] == "spreadsheet-safe" and status["created_by"] == "researcher"
    assert status["download_url"].endswith(reverse("api-export-download", args=[job_id]))
    download = api.get(status["download_url"])
    assert download.status_code == 200 and download["X-Export-Cells"] == "spreadsheet-safe"
    body = b"".join(download.streaming_content)
    assert len(body) == status["size"] and body.count(b"\n") == 13
    assert [job["id"] for job in api.get(url).json()["results"]] == [job_id]


def test_errors(api):
    project = bulk_responses(3)
    url = reverse("api-project-export-jobs", args=[project.pk])
    clean = api.post(url, {"dataset": "clean", "format": "csv"}, format="json")
    assert clean.status_code == 409 and "quality run" in clean.json()["detail"]
    assert api.post(url, {"dataset": "kit_gold", "format": "csv"}, format="json").status_code == 409  # not ReCAM's
    assert api.post(url, {"dataset": "raw", "format": "xlsx"}, format="json").status_code == 400
    assert api.post(reverse("api-project-export-jobs", args=[999999]), {}, format="json").status_code == 404
    queued = ExportJob.objects.create(project=project, dataset="raw", format="csv")
    assert not ExportJob.objects.exclude(pk=queued.pk).exists()
    assert api.get(reverse("api-export-job-detail", args=[queued.pk])).json()["download_url"] is None
    assert api.get(reverse("api-export-download", args=[queued.pk])).status_code == 404
    assert api.get(reverse("api-export-download", args=[999999])).status_code == 404


def test_staff_only(django_user_model, django_capture_on_commit_callbacks):
    from quality.services.exports import export_job_create

    project = bulk_responses(3)
    with django_capture_on_commit_callbacks(execute=True):
        job = export_job_create(project=project, dataset="raw", fmt="csv")
    anonymous = APIClient()
    someone = APIClient()
    someone.force_authenticate(django_user_model.objects.create_user("plain", password="pw"))
    annotator = project.annotators.first()
    by_key = APIClient(HTTP_AUTHORIZATION=f"Annotator {annotator.access_key}")
    calls = [
        ("get", reverse("api-project-export-jobs", args=[project.pk])),
        ("post", reverse("api-project-export-jobs", args=[project.pk])),
        ("get", reverse("api-export-job-detail", args=[job.pk])),
        ("get", reverse("api-export-download", args=[job.pk])),
    ]
    for client in (anonymous, someone, by_key):
        for method, url in calls:
            assert getattr(client, method)(url).status_code in (401, 403), (method, url)
    assert ExportJob.objects.count() == 1


def test_the_schema_documents_the_job_endpoints():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    jobs = paths["/api/projects/{project_id}/exports/"]
    assert set(jobs) >= {"get", "post"}
    assert set(jobs["post"]["responses"]) == {"201", "202", "400", "403", "404", "406", "409", "413", "415"}
    body = jobs["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ExportQueryRequest"}
    assert "/api/exports/{id}/" in paths
    download = paths["/api/exports/{id}/download/"]["get"]["responses"]
    assert set(download["200"]["content"]) == {
        "text/csv",
        "text/tab-separated-values",
        "application/x-ndjson",
        "application/json",
    }
    params = {p["name"] for p in paths["/api/projects/{project_id}/export/"]["get"]["parameters"]}
    assert {"spreadsheet_safe", "item_text"} <= params


def test_a_download_at_once_refuses_more_records_than_it_may_stream(api, settings):
    """A web worker is stopped after its timeout: a large export streamed at once would arrive
    cut off, so it is refused up front and named an export job's work."""
    project = bulk_responses(6)  # 2 items x 3 annotators
    url = reverse("api-project-export", args=[project.pk])
    settings.EXPORT_STREAM_MAX_RECORDS = 6
    at_limit = api.get(url, {"dataset": "raw", "format": "csv"})
    assert at_limit.status_code == 200 and b"".join(at_limit.streaming_content).count(b"\n") == 7
    settings.EXPORT_STREAM_MAX_RECORDS = 5
    refused = api.get(url, {"dataset": "raw", "format": "csv"})
    assert refused.status_code == 409 and refused["Content-Type"] == "application/json"
    detail = refused.json()["detail"]
    assert "6 records" in detail and "more than the 5" in detail and "export job" in detail
    # the job of the same export is not limited
    jobs = reverse("api-project-export-jobs", args=[project.pk])
    created = api.post(jobs, {"dataset": "raw", "format": "csv"}, format="json")
    assert created.status_code in (201, 202)
