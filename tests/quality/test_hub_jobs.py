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
