"""Publishing a batch on its recruiting site: the cost estimate, the
balance check, the publish job that makes one posting per unit with progress n of N (run by the
``publish_batch`` task), and the watchdog that resends a job stuck after its worker died. Every
step speaks the channel interface (`get_channel(batch.channel)`)."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.channels import Channel, ChannelError, ChannelSettingsError, ChannelUnavailable, get_channel, money
from annotation.channels.calls import calls_recorded_on, records_calls
from annotation.models import Batch, PublishJob, Unit, UnitItem
from annotation.selectors.batches import publishable_units


class PublishRefused(ValueError):
    """The batch cannot be published as asked (not on a recruiting site, bad settings, no money)."""


@dataclass(frozen=True)
class CostEstimate:
    """What approving every assignment of the units still to publish would cost (bonuses apart)."""

    units: int
    assignments_per_unit: int
    reward: Decimal  # per assignment
    fee: Decimal  # per assignment
    #: who may take the work, in the channel's words (e.g. "Masters"); empty: anybody
    audience: str
    balance: Decimal | None = None
    lead_items: int = 0  # consistency items each worker's first HIT also holds
    currency: str = "USD"  # of every amount here (ISO 4217)

    @property
    def assignments(self) -> int:
        return self.units * self.assignments_per_unit

    @property
    def cost_per_assignment(self) -> Decimal:
        return self.reward + self.fee

    @property
    def rewards_total(self) -> Decimal:
        return self.reward * self.assignments

    @property
    def fees_total(self) -> Decimal:
        return self.fee * self.assignments

    @property
    def total(self) -> Decimal:
        return self.rewards_total + self.fees_total

    @property
    def enough(self) -> bool:
        return self.balance is None or self.balance >= self.total

    @property
    def shortfall(self) -> Decimal:
        return max(Decimal("0.00"), self.total - (self.balance or Decimal("0.00")))


def check_publishable(batch: Batch) -> Channel:
    """The batch's channel, if it recruits on a remote site and the batch's settings for it are
    valid; else PublishRefused."""
    channel = get_channel(batch.channel)
    if not channel.recruits_remotely:
        raise PublishRefused(f"“{batch}” is recruited by {channel.title}: there is nothing to publish")
    try:
        channel.check_settings(batch)
    except ChannelSettingsError as exc:
        raise PublishRefused(f"the {channel.title} settings of “{batch}” are not valid: {exc}") from exc
    return channel


@records_calls
def cost_estimate(
    *,
    batch: Batch,
    with_balance: bool = True,
    units: int | None = None,
    assignments_per_unit: int | None = None,
    max_assignments: int | None = None,
) -> CostEstimate:
    """Reward + the channel's fee per assignment × assignments per unit × units not published yet.

    ``units``/``assignments_per_unit`` override the counts (adding assignments); the fee rate
    follows ``max_assignments`` (a posting's total places). ``with_balance`` asks the channel.
    """
    channel = check_publishable(batch)
    per_unit = assignments_per_unit or batch.assignments_per_unit
    cost = channel.unit_cost(batch, max_assignments=max_assignments or per_unit)
    if cost is None:
        raise PublishRefused(f"{channel.title} does not say what the work costs")
    count = units if units is not None else publishable_units(batch).filter(channel_ref="").count()
    return CostEstimate(
        units=count,
        assignments_per_unit=per_unit,
        reward=cost.reward,
        fee=cost.fee,
        audience=channel.audience(batch),
        balance=channel.balance() if with_balance else None,
        lead_items=consistency_lead_count(batch),
        currency=channel.currency_code(),
    )


def consistency_lead_count(batch: Batch) -> int:
    """How many consistency items lead each worker's first HIT (the every-annotator unit's)."""
    return UnitItem.objects.filter(unit__batch=batch, unit__every_annotator=True).count()


@records_calls
def channel_balance(*, batch: Batch) -> Decimal | None:
    """The balance of the batch's channel account (raises ``ChannelError``; None: it does not pay)."""
    return get_channel(batch.channel).balance()


def check_balance(estimate: CostEstimate) -> None:
    if not estimate.enough:
        m = functools.partial(money, currency=estimate.currency)
        raise PublishRefused(
            f"the account balance {m(estimate.balance)} cannot cover the estimated {m(estimate.total)} "
            f"({m(estimate.rewards_total)} rewards + {m(estimate.fees_total)} fees); {m(estimate.shortfall)} short"
        )


@records_calls
def batch_publish_request(*, batch: Batch, base_url: str, by=None) -> PublishJob:
    """Record a publish job and hand it to the ``publish_batch`` task once committed.

    Preconditions: a batch on a recruiting site with settings its channel accepts, and a balance
    that covers the cost estimate (else ``PublishRefused``). While a job of the batch is pending or
    running, that job is returned instead of a new one (a second click); a job after a finished one
    publishes only the units still without a posting.
    """
    from annotation import tasks  # tasks call services; imported here to keep the cycle out of module load

    check_publishable(batch)
    try:
        check_balance(cost_estimate(batch=batch))
    except ChannelError as exc:
        raise PublishRefused(f"{get_channel(batch.channel).title} did not tell the balance: {exc}") from exc
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=batch.pk).first()
        running = batch.publish_jobs.filter(status__in=[PublishJob.Status.PENDING, PublishJob.Status.RUNNING])
        job = running.first()
        task_id = str(uuid.uuid4())
        if job is not None:  # a second click: send the same job again (harmless: same tokens)
            _save(job, celery_task_id=task_id)
        else:
            job = PublishJob.objects.create(
                batch=batch,
                base_url=base_url.rstrip("/"),
                total=publishable_units(batch).count(),
                done=publishable_units(batch).exclude(channel_ref="").count(),
                created_by=by,
                celery_task_id=task_id,
            )
    transaction.on_commit(lambda: tasks.publish_batch.apply_async(args=[job.pk], task_id=task_id), robust=True)
    return job


def publish_job_run(*, job: PublishJob) -> PublishJob:
    """Publish the job's batch: one posting per unit without one, progress saved after each unit.

    Idempotent and crash-safe: a finished job is returned as is (unless units failed for a
    transient reason: then it runs again for them); a job interrupted in the middle
    (a killed worker) runs again and skips published units, and a unit whose HIT was created
    but not recorded gets the same posting back through its request token. A unit that fails is
    listed with its reason and the others go on; ``job_transient_failures`` says whether
    running again may help. Raises ``ChannelUnavailable`` when the channel cannot be reached.
    """
    if job.status == PublishJob.Status.DONE and not job_transient_failures(job):
        return job
    batch = Batch.objects.select_related("project").get(pk=job.batch_id)
    with calls_recorded_on(batch):
        return _job_run(job, batch)


def _job_run(job: PublishJob, batch: Batch) -> PublishJob:
    _save(
        job,
        status=PublishJob.Status.RUNNING,
        started_at=job.started_at or timezone.now(),
        total=publishable_units(batch).count(),
        error="",
    )
    try:
        check_balance(cost_estimate(batch=batch))
    except ChannelUnavailable as exc:
        _save(job, error=f"The channel is unavailable; will try again: {exc}")
        raise
    except (PublishRefused, ChannelError) as exc:
        return _finish(job, status=PublishJob.Status.FAILED, error=str(exc))
    failures: list[dict] = []

    def progress(unit: Unit, ref: str | None, reason: str | None) -> None:
        if reason is not None:
            failures.append({"unit": unit.pk, "position": unit.position, "reason": reason, "transient": False})
        _save(job, done=publishable_units(batch).exclude(channel_ref="").count(), failures=failures)

    try:
        result = get_channel(batch.channel).publish(batch, base_url=job.base_url, on_unit=progress)
    except ChannelUnavailable as exc:
        _save(job, error=f"The channel is unavailable; will try again: {exc}")
        raise
    except (ChannelError, ChannelSettingsError) as exc:
        return _finish(job, status=PublishJob.Status.FAILED, error=str(exc))
    for failure in failures:
        failure["transient"] = failure["unit"] in result.retryable
    return _finish(job, status=PublishJob.Status.DONE, done=len(result.refs), failures=failures)


def job_transient_failures(job: PublishJob) -> bool:
    return any(f.get("transient") for f in job.failures or [])


def job_stale_minutes(job: PublishJob, now: datetime | None = None) -> int | None:
    """Minutes without progress of an open job that counts as stuck, else None."""
    if not job.open:
        return None
    idle = (now or timezone.now()) - (job.progress_at or job.created_at)
    return int(idle.total_seconds() // 60) if idle >= _stale_after() else None


def _stale_after() -> timedelta:
    return timedelta(minutes=settings.PUBLISH_STALE_MINUTES)


@dataclass
class WatchdogReport:
    resent: list[int] = field(default_factory=list)  # job ids sent to the workers again
    failed: list[int] = field(default_factory=list)  # job ids given up on

    def as_dict(self) -> dict[str, list[int]]:
        return {"resent": self.resent, "failed": self.failed}


def publish_watchdog(*, now: datetime | None = None, queue: str | None = None) -> WatchdogReport:
    """Resend publish jobs that made no progress for PUBLISH_STALE_MINUTES.

    A job stays pending or running when its worker died and the broker did not redeliver the
    message (or redelivers it only after its visibility timeout, an hour on Redis), or when its
    message was lost. Resending is safe: every posting's request token is fixed, so a second runner
    finds the postings already made. After PUBLISH_MAX_DISPATCHES sends in all the job is
    marked failed with what to check; publishing the batch again resumes it.
    """
    from annotation import tasks

    now = now or timezone.now()
    cutoff, limit = now - _stale_after(), settings.PUBLISH_MAX_DISPATCHES
    report = WatchdogReport()
    open_jobs = PublishJob.objects.filter(status__in=[PublishJob.Status.PENDING, PublishJob.Status.RUNNING])
    stuck = open_jobs.filter(Q(progress_at__lt=cutoff) | Q(progress_at__isnull=True, created_at__lt=cutoff))
    for pk in stuck.values_list("pk", flat=True):
        with transaction.atomic():
            job = stuck.select_for_update().filter(pk=pk).first()
            if job is None:  # progressed, finished or handled by another watchdog meanwhile
                continue
            minutes = job_stale_minutes(job, now)
            if job.dispatches >= limit:
                _finish(
                    job,
                    status=PublishJob.Status.FAILED,
                    error=(
                        f"No progress for {minutes} minutes after {job.dispatches} sends to the Celery workers: is a "
                        "worker running (celery -A config worker) and reaching the broker? Publishing the batch again "
                        "resumes with the units still without a posting."
                    ),
                )
                report.failed.append(job.pk)
                continue
            task_id = str(uuid.uuid4())
            _save(
                job,
                celery_task_id=task_id,
                dispatches=job.dispatches + 1,
                error=(
                    f"No progress for {minutes} minutes (its worker may have died): sent to the workers again "
                    f"({job.dispatches + 1} of {limit} sends)."
                ),
            )
            options = {"task_id": task_id, **({"queue": queue} if queue else {})}
            send = functools.partial(tasks.publish_batch.apply_async, args=[job.pk], **options)
            transaction.on_commit(send, robust=True)
            report.resent.append(job.pk)
    return report


def _save(job: PublishJob, **values) -> None:
    """Save these fields of the job; every save is a sign of life for the watchdog."""
    values.setdefault("progress_at", timezone.now())
    PublishJob.objects.filter(pk=job.pk).update(**values)
    for name, value in values.items():
        setattr(job, name, value)


def _finish(job: PublishJob, **values) -> PublishJob:
    _save(job, finished_at=timezone.now(), **values)
    return job
