"""An export job written by a real Celery worker process (broker: CELERY_TEST_BROKER_URL)."""

import os

import pytest

from quality.models import ExportJob
from quality.services.exports import export_job_path
from tests.quality.helpers import bulk_responses
from tests.worker import broker_reachable, worker_process

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

if not broker_reachable():
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise RuntimeError("the Celery test broker is not reachable (CELERY_TEST_BROKER_URL)")
    pytestmark.append(pytest.mark.skip(reason="no Celery broker on 127.0.0.1:6379"))


def test_worker_writes_the_export_file(settings, tmp_path):
    from quality.tasks import run_export

    settings.EXPORT_ROOT = tmp_path / "exports"
    project = bulk_responses(27)
    job = ExportJob.objects.create(
        project=project, dataset="raw", format="csv", file_name="raw.csv", options={"spreadsheet_safe": True}
    )
    ExportJob.objects.filter(pk=job.pk).update(file_path=f"{project.pk}/{job.pk}-raw.csv")
    with worker_process(
        extra_env={"EXPORT_ROOT": str(settings.EXPORT_ROOT), "EXPORT_PROGRESS_ROWS": "10"}, log_dir=tmp_path
    ) as worker:
        result = run_export.apply_async(args=[job.pk], queue=worker.queue).get(timeout=90)
    assert result == {"job": job.pk, "status": "done", "rows": 27}
    job.refresh_from_db()
    assert (job.status, job.rows_written, job.rows_total, job.cells) == ("done", 27, 27, "spreadsheet-safe")
    body = export_job_path(job).read_bytes()
    assert len(body) == job.size and body.count(b"\r\n") == 28
