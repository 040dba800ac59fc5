"""A Hub folder as an export job: the folder zipped under EXPORT_ROOT, listed and downloaded as
every job's file is; unpacked, it loads with `datasets` offline like the command's folder."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from quality.exports import ExportUnavailable
from quality.exports.hub import HubOptions, SplitError, SplitPlan
from quality.models import ExportJob
from quality.services.exports import export_job_path, hub_export_job_create
from quality.services.runs import quality_run_create
from tests.quality.test_hub_folder import load, offline_hub  # noqa: F401  (the fixture, autouse)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def export_root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def test_the_job_zips_the_folder_and_the_download_serves_it(
    annotated, staff_client, staff, tmp_path, django_capture_on_commit_callbacks
):
    project = annotated.project
    with pytest.raises(ExportUnavailable, match="needs a finished quality run"):
        hub_export_job_create(project=project)
    quality_run_create(project=project)
    with pytest.raises(SplitError, match="no batch 999"):
        hub_export_job_create(project=project, options=HubOptions(plan=SplitPlan.parse(by="batch", specs=["x=999"])))

    options = HubOptions(license="cc-by-4.0")
    with django_capture_on_commit_callbacks(execute=True):
        job = hub_export_job_create(project=project, options=options, by=staff)
    job.refresh_from_db()
    assert (job.status, job.dataset, job.format, job.error, job.rows_total) == ("done", "hub", "zip", "", 20)
    assert job.file_name.endswith(".zip") and "-hub-" in job.file_name
    with zipfile.ZipFile(export_job_path(job)) as archive:
        names = set(archive.namelist())
        assert names == {"README.md", "items/train.parquet", "annotations/train.parquet"}
        archive.extractall(tmp_path / "unpacked")
    items = load(tmp_path / "unpacked", "items")
    annotations = load(tmp_path / "unpacked", "annotations")
    assert (
        job.rows_written
        == items["train"].num_rows + annotations["train"].num_rows
        == 20 + annotations["train"].num_rows
    )
    assert "license: cc-by-4.0" in (tmp_path / "unpacked" / "README.md").read_text(encoding="utf-8")

    response = staff_client.get(reverse("quality:export-download", args=[project.pk, job.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert b"".join(response.streaming_content) == export_job_path(job).read_bytes()


def test_the_command_starts_a_hub_job(annotated):
    project = annotated.project
    quality_run_create(project=project)
    out = io.StringIO()
    call_command("export", str(project.pk), "--dataset", "hub", "--job", stdout=out, stderr=io.StringIO())
    job = ExportJob.objects.get(project=project)  # queued: the test's transaction never commits
    assert out.getvalue() == f"export job #{job.pk} queued (exact cells); a worker writes it\n"
    assert (job.dataset, job.format, job.options["split"]["default"]) == ("hub", "zip", "train")
    with pytest.raises(CommandError, match="-o DIR"):
        call_command("export", str(project.pk), "--dataset", "hub")


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_the_report_page_prepares_a_hub_folder(annotated, staff_client, tmp_path, django_capture_on_commit_callbacks):
    project = annotated.project
    url = reverse("quality:hub-export-start", args=[project.pk])
    report = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert f'action="{url}"' in report and 'value="multiple-choice, question-answering"' in report  # the kind's own

    refused = staff_client.post(url, {"split_default": "train", "license": "other"}, follow=True)
    assert _messages(refused) == [
        "Hub folder not started: A Hub folder needs a finished quality run (its card reports it); run quality first."
    ]
    quality_run_create(project=project)
    bad = staff_client.post(
        url, {"split_by": "batch", "splits": "test=999", "split_default": "train", "license": "CC BY"}, follow=True
    )
    assert _messages(bad) == [
        "Hub folder not started: licence 'CC BY' is not a Hub id (lower-case letters, digits, - and .)"
    ]
    unknown = staff_client.post(
        url, {"split_by": "batch", "splits": "test=999", "split_default": "train", "license": "mit"}, follow=True
    )
    assert _messages(unknown)[0].startswith("Hub folder not started: no batch 999 in this project")
    assert not ExportJob.objects.exists()

    batch = project.batches.get()
    form = {
        "split_by": "batch",
        "splits": f"test={batch.pk}",
        "split_default": "train",
        "license": "cc-by-4.0",
        "task_categories": "question-answering",
    }
    with django_capture_on_commit_callbacks(execute=True):
        started = staff_client.post(url, form, follow=True)
    job = ExportJob.objects.get()
    assert _messages(started)[0].startswith(f"Hub folder #{job.pk} ")
    job.refresh_from_db()
    assert (job.dataset, job.format, job.status, job.created_by.username) == ("hub", "zip", "done", "researcher")
    page = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()  # once written
    assert reverse("quality:export-download", args=[project.pk, job.pk]) in page
    download = staff_client.get(reverse("quality:export-download", args=[project.pk, job.pk]))
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as archive:
        archive.extractall(tmp_path / "folder")
    assert load(tmp_path / "folder", "items")["test"].num_rows == 20  # the batch holds every item
    card = (tmp_path / "folder" / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-4.0" in card and "- question-answering" in card and "multiple-choice" not in card


def test_the_api_starts_a_hub_folder_job(annotated, staff, tmp_path, django_capture_on_commit_callbacks):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(staff)
    project = annotated.project
    url = reverse("api-project-hub-folder", args=[project.pk])
    no_run = api.post(url, {}, format="json")
    assert no_run.status_code == 409 and "finished quality run" in no_run.json()["detail"]
    quality_run_create(project=project)
    assert api.post(url, {"license": "CC BY"}, format="json").status_code == 400
    assert api.post(url, {"split_default": "a b"}, format="json").status_code == 400
    unknown = api.post(url, {"split_by": "batch", "split_map": {"999": "test"}}, format="json")
    assert unknown.status_code == 409 and "no batch 999" in unknown.json()["detail"]
    no_key = api.post(url, {"split_by": "key"}, format="json")
    assert no_key.status_code == 409 and "the key's name" in no_key.json()["detail"]
    assert api.post(reverse("api-project-hub-folder", args=[999999]), {}, format="json").status_code == 404
    assert not ExportJob.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(
            url,
            {
                "split_by": "key",
                "split_key": "split",
                "split_default": "validation",
                "task_categories": ["multiple-choice"],
            },
            format="json",
        )
    assert created.status_code == 202, created.content
    job = api.get(reverse("api-export-job-detail", args=[created.json()["id"]])).json()
    assert (job["status"], job["dataset"], job["format"]) == ("done", "hub", "zip")
    body = b"".join(api.get(job["download_url"]).streaming_content)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        archive.extractall(tmp_path / "folder")
    assert list(load(tmp_path / "folder", "items")) == ["validation"]  # no item has a `split` key
