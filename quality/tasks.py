"""Celery tasks of the quality app: thin, each loads ids and calls one service."""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError

from annotation.models import Project
from quality.models import ExportJob, QualityRun
from quality.services.exports import export_job_execute, export_jobs_purge
from quality.services.runs import quality_run_create, quality_run_execute


@shared_task(autoretry_for=(OperationalError, InterfaceError), retry_backoff=True, max_retries=3)
def run_quality(project_id: int, user_id: int | None = None, run_id: int | None = None) -> int:
    """Run the project's quality rules; returns the run id.

    With `run_id` it computes that recorded run (retry-safe: a finished run is left alone);
    without, it records a new run. Only transient database errors are retried.
    """
    if run_id is not None:
        run = QualityRun.objects.select_related("project").get(pk=run_id, project_id=project_id)
        return quality_run_execute(run=run).pk
    project = Project.objects.get(pk=project_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    return quality_run_create(project=project, by=user).pk


@shared_task(autoretry_for=(OperationalError, InterfaceError), retry_backoff=True, max_retries=3)
def run_export(job_id: int) -> dict:
    """Write an export job's file (retry-safe: a finished job is left alone, a broken one is
    written again). Only transient database errors are retried."""
    job = export_job_execute(job=ExportJob.objects.select_related("project").get(pk=job_id))
    return {"job": job.pk, "status": job.status, "rows": job.rows_written}


@shared_task
def purge_exports() -> list[int]:
    """Beat: delete export files older than EXPORT_KEEP_DAYS; returns the jobs expired."""
    return export_jobs_purge()
