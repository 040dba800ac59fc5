"""Publishing a batch on MTurk: the cost estimate, the balance check, the publish job that
makes one HIT per unit with progress n of N (run by the ``publish_batch`` task), and the
watchdog that resends a job stuck after its worker died."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.channels import ChannelError, ChannelUnavailable, HitSettingsError, get_channel
from annotation.channels.mturk import hit_units
from annotation.models import Batch, MTurkPublishJob, Unit, UnitItem

SLUG = "mturk"


class PublishRefused(ValueError):
    """The batch cannot be published as asked (not an MTurk batch, bad settings, no money)."""


@dataclass(frozen=True)
class CostEstimate:
    """What approving every assignment of the units still to publish would cost (bonuses apart)."""

    units: int
    assignments_per_unit: int
    reward: Decimal  # per assignment
    fee: Decimal  # per assignment
    masters: bool
    balance: Decimal | None = None
    lead_items: int = 0  # consistency items each worker's first HIT also holds

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


def check_mturk_batch(batch: Batch) -> None:
    if batch.channel != SLUG:
        raise PublishRefused(f"“{batch}” is recruited by {batch.channel}, not on MTurk")
    try:
        get_channel(SLUG).settings_for(batch)
    except HitSettingsError as exc:
        raise PublishRefused(f"the HIT settings of “{batch}” are not valid: {exc}") from exc


def mturk_cost_estimate(*, batch: Batch, with_balance: bool = True, units: int | None = None,
                        assignments_per_unit: int | None = None, max_assignments: int | None = None) -> CostEstimate:
    """Reward + MTurk's fee per assignment × assignments per unit × units not published yet.

    ``units``/``assignments_per_unit`` override the counts (adding assignments); the fee rate
    follows ``max_assignments`` (the HIT's total; +20 % from 10 on). ``with_balance`` asks MTurk.
    """
    check_mturk_batch(batch)
    channel = get_channel(SLUG)
    hs = channel.settings_for(batch)
    per_unit = assignments_per_unit or batch.assignments_per_unit
    cost = channel.unit_cost(batch, max_assignments=max_assignments or per_unit)
    count = units if units is not None else hit_units(batch).filter(channel_ref="").count()
    return CostEstimate(units=count, assignments_per_unit=per_unit, reward=cost.reward, fee=cost.fee,
                        masters=hs.masters, balance=channel.balance() if with_balance else None,
                        lead_items=consistency_lead_count(batch))


def consistency_lead_count(batch: Batch) -> int:
    """How many consistency items lead each worker's first HIT (the every-annotator unit's)."""
    return UnitItem.objects.filter(unit__batch=batch, unit__every_annotator=True).count()


def mturk_balance() -> Decimal:
    """The requester account's available balance (raises ``ChannelError``)."""
    return get_channel(SLUG).balance()


def check_balance(estimate: CostEstimate) -> None:
    if not estimate.enough:
        raise PublishRefused(
            f"the account balance ${estimate.balance} cannot cover the estimated ${estimate.total} "
            f"(${estimate.rewards_total} rewards + ${estimate.fees_total} fees); ${estimate.shortfall} short"
        )


def mturk_publish_request(*, batch: Batch, base_url: str, by=None) -> MTurkPublishJob:
    """Record a publish job and hand it to the ``publish_batch`` task once committed.

    Preconditions: an MTurk batch with valid HIT settings, and a balance that covers the cost
    estimate (else ``PublishRefused``). While a job of the batch is pending or running, that job
    is returned instead of a new one (a second click); a job after a finished one publishes only
    the units still without a HIT.
    """
    from annotation import tasks  # tasks call services; imported here to keep the cycle out of module load

    check_mturk_batch(batch)
    try:
        check_balance(mturk_cost_estimate(batch=batch))
    except ChannelError as exc:
        raise PublishRefused(f"MTurk did not tell the balance: {exc}") from exc
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=batch.pk).first()
        running = batch.mturk_jobs.filter(status__in=[MTurkPublishJob.Status.PENDING, MTurkPublishJob.Status.RUNNING])
        job = running.first()
        task_id = str(uuid.uuid4())
        if job is not None:  # a second click: send the same job again (harmless: same tokens)
            _save(job, celery_task_id=task_id)
        else:
            job = MTurkPublishJob.objects.create(
                batch=batch, base_url=base_url.rstrip("/"), total=hit_units(batch).count(),
                done=hit_units(batch).exclude(channel_ref="").count(), created_by=by, celery_task_id=task_id,
            )
    transaction.on_commit(lambda: tasks.publish_batch.apply_async(args=[job.pk], task_id=task_id), robust=True)
    return job


def mturk_publish_run(*, job: MTurkPublishJob) -> MTurkPublishJob:
    """Publish the job's batch: one HIT per unit without one, progress saved after each unit.

    Idempotent and crash-safe: a finished job is returned as is (unless units failed for a
    transient reason: then it runs again for them); a job interrupted in the middle
    (a killed worker) runs again and skips published units, and a unit whose HIT was created
    but not recorded gets the same HIT back through its request token. A unit that fails is
    listed with its reason and the others go on; ``job_transient_failures`` says whether
    running again may help. Raises ``ChannelUnavailable`` when MTurk cannot be reached at all.
    """
    if job.status == MTurkPublishJob.Status.DONE and not job_transient_failures(job):
        return job
    batch = Batch.objects.select_related("project").get(pk=job.batch_id)
    _save(job, status=MTurkPublishJob.Status.RUNNING, started_at=job.started_at or timezone.now(),
          total=hit_units(batch).count(), error="")
    try:
        check_balance(mturk_cost_estimate(batch=batch))
    except ChannelUnavailable as exc:
        _save(job, error=f"MTurk is unavailable; will try again: {exc}")
        raise
    except (PublishRefused, ChannelError) as exc:
        return _finish(job, status=MTurkPublishJob.Status.FAILED, error=str(exc))
    failures: list[dict] = []

    def progress(unit: Unit, ref: str | None, reason: str | None) -> None:
        if reason is not None:
            failures.append({"unit": unit.pk, "position": unit.position, "reason": reason,
                             "transient": False})
        _save(job, done=hit_units(batch).exclude(channel_ref="").count(), failures=failures)

    try:
        result = get_channel(SLUG).publish(batch, base_url=job.base_url, on_unit=progress)
    except ChannelUnavailable as exc:
        _save(job, error=f"MTurk is unavailable; will try again: {exc}")
        raise
    except (ChannelError, HitSettingsError) as exc:
        return _finish(job, status=MTurkPublishJob.Status.FAILED, error=str(exc))
    for failure in failures:
        failure["transient"] = failure["unit"] in result.retryable
    return _finish(job, status=MTurkPublishJob.Status.DONE, done=len(result.refs), failures=failures)


def job_transient_failures(job: MTurkPublishJob) -> bool:
    return any(f.get("transient") for f in job.failures or [])


def job_stale_minutes(job: MTurkPublishJob, now: datetime | None = None) -> int | None:
    """Minutes without progress of an open job that counts as stuck, else None."""
    if not job.open:
        return None
    idle = (now or timezone.now()) - (job.progress_at or job.created_at)
    return int(idle.total_seconds() // 60) if idle >= _stale_after() else None


def _stale_after() -> timedelta:
    return timedelta(minutes=settings.MTURK_PUBLISH_STALE_MINUTES)


@dataclass
class WatchdogReport:
    resent: list[int] = field(default_factory=list)  # job ids sent to the workers again
    failed: list[int] = field(default_factory=list)  # job ids given up on

    def as_dict(self) -> dict[str, list[int]]:
        return {"resent": self.resent, "failed": self.failed}


def mturk_publish_watchdog(*, now: datetime | None = None, queue: str | None = None) -> WatchdogReport:
    """Resend publish jobs that made no progress for MTURK_PUBLISH_STALE_MINUTES.

    A job stays pending or running when its worker died and the broker did not redeliver the
    message (or redelivers it only after its visibility timeout, an hour on Redis), or when its
    message was lost. Resending is safe: every HIT's request token is fixed, so a second runner
    finds the HITs already made. After MTURK_PUBLISH_MAX_DISPATCHES sends in all the job is
    marked failed with what to check; publishing the batch again resumes it.
    """
    from annotation import tasks

    now = now or timezone.now()
    cutoff, limit = now - _stale_after(), settings.MTURK_PUBLISH_MAX_DISPATCHES
    report = WatchdogReport()
    open_jobs = MTurkPublishJob.objects.filter(status__in=[MTurkPublishJob.Status.PENDING,
                                                          MTurkPublishJob.Status.RUNNING])
    stuck = open_jobs.filter(Q(progress_at__lt=cutoff) | Q(progress_at__isnull=True, created_at__lt=cutoff))
    for pk in stuck.values_list("pk", flat=True):
        with transaction.atomic():
            job = stuck.select_for_update().filter(pk=pk).first()
            if job is None:  # progressed, finished or handled by another watchdog meanwhile
                continue
            minutes = job_stale_minutes(job, now)
            if job.dispatches >= limit:
                _finish(job, status=MTurkPublishJob.Status.FAILED, error=(
                    f"No progress for {minutes} minutes after {job.dispatches} sends to the Celery workers: is a "
                    "worker running (celery -A config worker) and reaching the broker? Publishing the batch again "
                    "resumes with the units still without a HIT."))
                report.failed.append(job.pk)
                continue
            task_id = str(uuid.uuid4())
            _save(job, celery_task_id=task_id, dispatches=job.dispatches + 1, error=(
                f"No progress for {minutes} minutes (its worker may have died): sent to the workers again "
                f"({job.dispatches + 1} of {limit} sends)."))
            options = {"task_id": task_id, **({"queue": queue} if queue else {})}
            transaction.on_commit(lambda job_pk=job.pk, options=options: tasks.publish_batch.apply_async(
                args=[job_pk], **options), robust=True)
            report.resent.append(job.pk)
    return report


def _save(job: MTurkPublishJob, **values) -> None:
    """Save these fields of the job; every save is a sign of life for the watchdog."""
    values.setdefault("progress_at", timezone.now())
    MTurkPublishJob.objects.filter(pk=job.pk).update(**values)
    for name, value in values.items():
        setattr(job, name, value)


def _finish(job: MTurkPublishJob, **values) -> MTurkPublishJob:
    _save(job, finished_at=timezone.now(), **values)
    return job
