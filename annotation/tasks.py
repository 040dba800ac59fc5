"""Celery tasks: thin, idempotent, retry-safe; each calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from annotation.channels import ChannelUnavailable
from annotation.models import Batch, ModelRun, PublishJob, Response
from annotation.services.adaptive import estimates_update
from annotation.services.adjudication import adjudication_open_for_item, adjudication_tasks_release_idle
from annotation.services.assignments import assignments_release_abandoned
from annotation.services.model_runs import model_run_execute
from annotation.services.publish import job_transient_failures, publish_job_run, publish_watchdog
from annotation.services.sync import batch_sync, open_batches_sync

TRANSIENT = (OperationalError, InterfaceError)


class PublishIncomplete(Exception):
    """Some units failed for a transient reason (throttling past the client's retries)."""


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def release_abandoned_assignments() -> int:
    """The periodic sweep (CELERY_BEAT_SCHEDULE): idle work, annotations and claimed
    adjudication tasks, goes back to the pool. Running it twice releases nothing more, so a
    retry after a lost connection is harmless. How many were released, of both."""
    return assignments_release_abandoned() + adjudication_tasks_release_idle()


@shared_task(
    autoretry_for=(*TRANSIENT, ChannelUnavailable, PublishIncomplete),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=6,
    acks_late=True,
)
def publish_batch(job_id: int) -> dict:
    """Run a publish job. Safe to run twice or after a crash: every posting has a request token
    derived from its unit, so the channel hands back the posting it already made instead of a second."""
    job = publish_job_run(job=PublishJob.objects.get(pk=job_id))
    if job_transient_failures(job):
        raise PublishIncomplete(f"job {job.pk}: {len(job.failures)} unit(s) failed for now")
    return {"job": job.pk, "status": job.status, "done": job.done, "total": job.total, "failed": len(job.failures)}


@shared_task(autoretry_for=(*TRANSIENT, ChannelUnavailable), retry_backoff=True, max_retries=3)
def sync_batch(batch_id: int) -> dict:
    """Sync one batch now (the admin's "Sync now")."""
    return batch_sync(batch=Batch.objects.get(pk=batch_id)).as_dict()


@shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries=3)
def sync_open_batches() -> list[dict]:
    """The periodic sync of every open batch on a channel that syncs (CELERY_BEAT_SCHEDULE,
    CHANNEL_SYNC_SECONDS)."""
    return [report.as_dict() for report in open_batches_sync()]


@shared_task(name="annotation.tasks.publish_watchdog", autoretry_for=TRANSIENT, retry_backoff=True, max_retries=3)
def publish_watchdog_task() -> dict:
    """The periodic check for stuck publish jobs (CELERY_BEAT_SCHEDULE, PUBLISH_WATCHDOG_SECONDS)."""
    return publish_watchdog().as_dict()


@shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries=5)
def open_adjudication(response_id: int) -> int | None:
    """After an item's annotation completed: compare its first two annotations when both are
    there (`adjudication_open_for_item`, idempotent). The adjudication task's id, if one is open."""
    response = Response.objects.select_related("item__project", "assignment__unit__batch").get(pk=response_id)
    task = adjudication_open_for_item(item=response.item, batch=response.assignment.unit.batch)
    return None if task is None else task.pk


@shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries=5)
def update_estimates(batch_id: int) -> int:
    """After a unit of an adaptive batch completed: aggregate its labels again
    (`estimates_update`, idempotent). How many items have an estimate."""
    return estimates_update(batch=Batch.objects.select_related("project").get(pk=batch_id))


@shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries=3, acks_late=True)
def run_model(run_id: int) -> dict:
    """Run a model run (`model_run_execute`): safe to run again after a crash, a call already
    answered is never made twice."""
    run = model_run_execute(run=ModelRun.objects.get(pk=run_id))
    return {"run": run.pk, "status": run.status, "done": run.items_done, "total": run.items_total}
