"""Export jobs: created -> run inline -> a file under EXPORT_ROOT -> downloaded; progress as it
goes, a failure recorded, files expired after EXPORT_KEEP_DAYS, the report page lists them, and
only staff get anything."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Response
from quality.exports import ExportUnavailable, Options, UnknownExport, export_open, writers
from quality.models import ExportJob
from quality.services.exports import export_job_create, export_job_path, export_jobs_purge
from tests.quality.helpers import bulk_responses

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def export_root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def run_job(capture, **kwargs) -> ExportJob:
    """Create a job and run the on_commit hand-off (inline: no broker in the tests)."""
    with capture(execute=True):
        job = export_job_create(**kwargs)
    job.refresh_from_db()
    return job


def content(response) -> bytes:
    return b"".join(response.streaming_content)


def test_a_job_writes_the_file_the_download_serves(staff_client, django_capture_on_commit_callbacks, staff):
    project = bulk_responses(30)
    job = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="csv", by=staff)
    assert (job.status, job.rows_written, job.rows_total, job.progress, job.error) == ("done", 30, 30, 1.0, "")
    path = export_job_path(job)
    assert path.parent.parent == django_settings.EXPORT_ROOT and path.name.endswith(".csv")
    assert not list(path.parent.glob("*.part"))
    body = path.read_bytes()
    assert job.size == len(body)
    assert body == b"".join(export_open(project=project, dataset="raw", fmt="csv").chunks)  # one writer
    response = staff_client.get(reverse("quality:export-download", args=[project.pk, job.pk]))
    assert response.status_code == 200 and content(response) == body
    assert response["Content-Disposition"].startswith(f'attachment; filename="{job.file_name}"')
    assert response["X-Export-Cells"] == "exact"
    assert job.created_by == staff and job.started_at <= job.finished_at


def test_progress_is_recorded_every_n_rows(settings, django_capture_on_commit_callbacks):
    settings.EXPORT_PROGRESS_ROWS = 10
    project = bulk_responses(45)
    with CaptureQueriesContext(connection) as queries:
        job = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="jsonl")
    progress = [
        q["sql"]
        for q in queries
        if "quality_exportjob" in q["sql"]
        and "rows_written" in q["sql"]
        and q["sql"].lstrip().upper().startswith("UPDATE")
    ]
    # the start (0), the writer's updates at chunk ends past every 10 rows, and the end (45)
    assert len(progress) >= 3
    assert job.rows_written == job.rows_total == 45 and job.status == "done"


def test_queries_do_not_grow_with_rows(settings, django_capture_on_commit_callbacks):
    settings.EXPORT_PROGRESS_ROWS = 10**9
    counts = []
    for n in (10, 4500):
        project = bulk_responses(n)
        with CaptureQueriesContext(connection) as queries:
            job = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="csv")
        assert job.rows_written >= n
        counts.append(len(queries))
    # 13: one of them asks whether any answer was shown a model's suggestion (its columns)
    assert counts[0] == counts[1] <= 13, counts


def test_a_failure_is_recorded_and_leaves_no_file(staff_client, django_capture_on_commit_callbacks):
    project = bulk_responses(9)
    Response.objects.filter(item__project=project).update(answers=["not", "an", "object"])
    with django_capture_on_commit_callbacks(execute=True):  # robust hand-off: logged, not raised
        job = export_job_create(project=project, dataset="raw", fmt="csv")
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("AttributeError") and job.finished_at
    assert not export_job_path(job).exists() and not list(export_job_path(job).parent.glob("*"))
    assert staff_client.get(reverse("quality:export-download", args=[project.pk, job.pk])).status_code == 404


def test_names_and_preconditions_are_checked_before_anything_is_queued():
    project = bulk_responses(3)
    with pytest.raises(ExportUnavailable, match="quality run"):
        export_job_create(project=project, dataset="clean", fmt="csv")
    with pytest.raises(UnknownExport, match="known formats"):
        export_job_create(project=project, dataset="raw", fmt="xlsx")
    assert not ExportJob.objects.exists()


def test_finished_files_expire_after_the_kept_days(settings, django_capture_on_commit_callbacks):
    settings.EXPORT_KEEP_DAYS = 7
    project = bulk_responses(3)
    old = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="csv")
    new = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="tsv")
    ExportJob.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=8))
    old_path = export_job_path(old)
    assert export_jobs_purge() == [old.pk]
    old.refresh_from_db()
    assert old.status == "expired" and old.file_path == "" and not old_path.exists()
    assert export_job_path(new).exists()
    out = io.StringIO()
    call_command("purge_exports", stdout=out)  # the command does what beat does: nothing left now
    assert out.getvalue().strip() == "expired 0 export job(s)"
    later = timezone.now() + timedelta(days=8)
    assert export_jobs_purge(now=later) == [new.pk] and not export_job_path(new).exists()
    assert "quality.tasks.purge_exports" in [e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()]


def test_the_report_page_starts_lists_and_links_jobs(staff_client, django_capture_on_commit_callbacks):
    project = bulk_responses(6)
    url = reverse("quality:export-start", args=[project.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(url, {"dataset": "raw", "format": "csv", "spreadsheet_safe": "on"}, follow=True)
    job = ExportJob.objects.get()
    assert job.status == "done" and job.options == {"spreadsheet_safe": True, "item_text": False}
    # the test's transaction runs the hand-off after the view has answered ("started"); outside
    # a transaction it runs at once and the view says "ready"
    assert f"Export #{job.pk} started" in response.content.decode()
    html = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert reverse("quality:export-download", args=[project.pk, job.pk]) in html
    assert "spreadsheet-safe" in html and job.file_name.endswith("-spreadsheet-safe.csv")
    bad = staff_client.post(url, {"dataset": "everything", "format": "csv"}, follow=True)
    assert "Export not started" in bad.content.decode() and ExportJob.objects.count() == 1


def test_only_staff_get_anything(client, plain_client, django_capture_on_commit_callbacks):
    project = bulk_responses(3)
    job = run_job(django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="csv")
    download = reverse("quality:export-download", args=[project.pk, job.pk])
    start = reverse("quality:export-start", args=[project.pk])
    for someone in (client, plain_client):  # anonymous, then a logged-in user who is not staff
        response = someone.get(download)
        assert response.status_code == 302 and "/login/" in response["Location"]
        assert someone.post(start, {"dataset": "raw", "format": "csv"}).status_code == 302
    assert ExportJob.objects.count() == 1


def test_a_job_of_another_project_is_not_found_under_this_one(staff_client, django_capture_on_commit_callbacks):
    first, second = bulk_responses(3), bulk_responses(6)
    job = run_job(django_capture_on_commit_callbacks, project=first, dataset="raw", fmt="csv")
    assert staff_client.get(reverse("quality:export-download", args=[second.pk, job.pk])).status_code == 404


def test_item_text_adds_what_was_annotated(django_capture_on_commit_callbacks):
    project = bulk_responses(3)
    job = run_job(
        django_capture_on_commit_callbacks, project=project, dataset="raw", fmt="csv", options=Options(item_text=True)
    )
    rows = list(csv.DictReader(io.StringIO(export_job_path(job).read_text(encoding="utf-8"), newline="")))
    assert len(rows) == 3 and rows[0]["article"].startswith("The cat sat") and rows[0]["question"].startswith("Q")
    plain = export_open(project=project, dataset="raw", fmt="csv")
    assert b"article" not in b"".join(plain.chunks)


def test_the_writer_reads_one_chunk_ahead_at_most():
    """Constant memory at any size: the writer pulls rows a chunk at a time, never the whole source."""
    pulled = 0

    def endless():
        nonlocal pulled
        while True:
            pulled += 1
            yield {"a": pulled, "b": "x"}

    for fmt in writers.FORMATS.values():
        pulled = 0
        chunks = writers.encode(["a", "b"], endless(), fmt, rows_per_chunk=50)
        first, second = next(chunks), next(chunks)
        assert pulled <= 101 and first and second
