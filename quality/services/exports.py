"""Export jobs: an export written to a file under EXPORT_ROOT by a Celery task (inline when no
broker is set), with its progress recorded as it goes, kept EXPORT_KEEP_DAYS days."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Project
from quality.exports import EXACT, ExportUnavailable, Options, dataset_chunks, export_dataset, export_filename
from quality.exports.hub import HubOptions
from quality.exports.hub.archive import HUB_ARCHIVE, HUB_DATASET, hub_archive_write, hub_check
from quality.models import ExportJob
from quality.selectors import latest_run

Status = ExportJob.Status


def export_job_path(job: ExportJob) -> Path:
    """Where the job's file is (or will be) on disk."""
    return Path(settings.EXPORT_ROOT) / job.file_path


def export_job_create(
    *, project: Project, dataset: str, fmt: str | None, options: Options = EXACT, by=None
) -> ExportJob:
    """Record a queued export job and hand it to the `run_export` task once the row is committed.

    Checks the names and preconditions first (raises UnknownExport, or ExportUnavailable when the
    dataset needs a quality run), so nothing is queued that cannot run. Without a broker the
    task runs inline and the job is finished (done or failed) when the transaction commits.
    """
    _, file_format = export_dataset(project=project, dataset=dataset, fmt=fmt, options=options)
    job = ExportJob.objects.create(
        project=project,
        dataset=dataset,
        format=file_format.name,
        options=options.as_dict(),
        created_by=by,
        file_name=export_filename(project, dataset, file_format, options=options),
    )
    return _queued(job)


def _queued(job: ExportJob) -> ExportJob:
    from quality import tasks  # tasks call services; imported here to keep the cycle out of module load

    job.file_path = f"{job.project_id}/{job.pk}-{job.file_name}"
    job.save(update_fields=["file_path"])
    transaction.on_commit(lambda: tasks.run_export.delay(job.pk), robust=True)
    return job


def hub_export_job_create(*, project: Project, options: HubOptions | None = None, by=None) -> ExportJob:
    """Record a queued job writing the project's Hub folder as a zip (docs/publishing.md), and
    hand it to the `run_export` task once the row is committed, as `export_job_create` does.

    Checks first: a finished quality run (ExportUnavailable), a split rule that fits (SplitError).
    """
    options = options or HubOptions()
    if latest_run(project) is None:
        raise ExportUnavailable("A Hub folder needs a finished quality run (its card reports it); run quality first.")
    hub_check(project, options)
    job = ExportJob.objects.create(
        project=project,
        dataset=HUB_DATASET,
        format=HUB_ARCHIVE.name,
        options=options.as_dict(),
        created_by=by,
        file_name=export_filename(project, HUB_DATASET, HUB_ARCHIVE),
    )
    return _queued(job)


def export_job_execute(*, job: ExportJob) -> ExportJob:
    """Write the job's file, recording progress every EXPORT_PROGRESS_ROWS rows. Idempotent: a
    finished job is returned as is; a queued, running (its worker died) or failed one is written
    again from the start. The file appears under its name only once complete (written as
    `.part`, then renamed). Raises what the export raised, after marking the job failed.
    """
    if job.status in (Status.DONE, Status.EXPIRED):
        return job
    target = export_job_path(job)
    partial = target.with_name(target.name + ".part")
    try:
        _update(job, status=Status.RUNNING, started_at=timezone.now(), rows_written=0, error="")
        rows = _write_hub(job, partial) if job.dataset == HUB_DATASET else _write(job, partial)
        partial.replace(target)
        _update(job, status=Status.DONE, rows_written=rows, size=target.stat().st_size, finished_at=timezone.now())
    except Exception as exc:
        partial.unlink(missing_ok=True)
        _update(job, status=Status.FAILED, error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now())
        raise
    return job


def _write(job: ExportJob, partial: Path) -> int:
    """Write the export to `partial`; returns the rows written."""
    options = Options.from_dict(job.options)
    source, file_format = export_dataset(project=job.project, dataset=job.dataset, fmt=job.format, options=options)
    _update(job, rows_total=source.total())
    counter = _RowCounter(source.rows())
    every = max(1, settings.EXPORT_PROGRESS_ROWS)
    recorded = 0
    partial.parent.mkdir(parents=True, exist_ok=True)
    with partial.open("wb") as out:
        for chunk in dataset_chunks(source, file_format, options, rows=counter):
            out.write(chunk)
            if counter.count - recorded >= every:
                recorded = counter.count
                _update(job, rows_written=recorded)
    return counter.count


def _write_hub(job: ExportJob, partial: Path) -> int:
    """Write the job's Hub folder as a zip to `partial`; returns the rows of all its configs."""
    _update(job, rows_total=job.project.items.count())
    partial.parent.mkdir(parents=True, exist_ok=True)
    folder = hub_archive_write(project=job.project, target=partial, options=HubOptions.from_dict(job.options))
    return folder.rows


class _RowCounter:
    """Passes rows on and counts them, so the job knows how far the writer has got."""

    def __init__(self, rows: Iterator[dict[str, Any]]):
        self.rows = rows
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            self.count += 1
            yield row


def _update(job: ExportJob, **fields: Any) -> None:
    """Save these fields on the object and in its row (one UPDATE, committed at once outside
    a transaction, so the admin and the API see the progress)."""
    for name, value in fields.items():
        setattr(job, name, value)
    ExportJob.objects.filter(pk=job.pk).update(**fields)


def export_jobs_purge(*, now: datetime | None = None) -> list[int]:
    """Delete the files of jobs finished more than EXPORT_KEEP_DAYS ago and mark them expired
    (the records stay: who exported what, when). Failed jobs left no file. Returns their ids."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.EXPORT_KEEP_DAYS)
    old = ExportJob.objects.filter(status=Status.DONE, finished_at__lt=cutoff)
    purged = []
    for job in old.only("id", "file_path", "status"):
        if job.file_path:
            export_job_path(job).unlink(missing_ok=True)
        ExportJob.objects.filter(pk=job.pk).update(status=Status.EXPIRED, file_path="", size=None)
        purged.append(job.pk)
    return purged
