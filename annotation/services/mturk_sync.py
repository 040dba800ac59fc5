"""Sync: what MTurk says about each HIT's assignments, matched with the answers we saved.

Every MTurk assignment gets an ``MTurkSubmission`` row: verified when MTurk knows it, its
worker and HIT are the ones our Assignment names, its answer carries our completion token and
every item was saved here; otherwise flagged with the problem. Only verified work is ever
approved or paid (see quality.services.review).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from annotation.channels import ChannelError, Submission, get_channel
from annotation.channels.base import NO_ANSWERS, UNIT_MISMATCH, UNKNOWN, WORKER_MISMATCH, submission_problems
from annotation.models import Assignment, Batch, MTurkHit, MTurkSubmission, Response, Unit

from .mturk_publish import SLUG

log = logging.getLogger(__name__)
SETTLED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)


@dataclass
class SyncReport:
    batch: int
    hits: int = 0
    listed: int = 0  # MTurk assignments listed
    verified: int = 0
    flagged: int = 0
    updated: int = 0  # our Assignments whose status changed
    errors: dict[str, str] = field(default_factory=dict)  # HIT or assignment id -> reason

    def summary(self) -> str:
        text = (f"{self.hits} HIT(s), {self.listed} MTurk assignment(s): {self.verified} verified, "
                f"{self.flagged} flagged, {self.updated} status change(s)")
        return text + (f"; {len(self.errors)} error(s)" if self.errors else "")

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _refs(unit: Unit) -> set[str]:
    return {h.hit_id for h in unit.mturk_hits.all()} | ({unit.channel_ref} - {""})


def _ours(mturk_assignment_id: str) -> list[Assignment]:
    return list(
        Assignment.objects.filter(channel_assignment_id=mturk_assignment_id, unit__batch__channel=SLUG)
        .select_related("annotator", "unit__batch")
        .prefetch_related(Prefetch("responses", queryset=Response.objects.only("id", "assignment_id", "completed_at")),
                          "unit__mturk_hits")
    )


def mturk_sync_batch(*, batch: Batch) -> SyncReport:
    """Pull every HIT's assignments of the batch and match them with our Assignments.

    Our submitted assignments MTurk did not list are looked up one by one (GetAssignment); one
    MTurk does not know is flagged. Idempotent: a second sync changes nothing that did not change.
    Raises ``ChannelUnavailable`` only when MTurk cannot be reached at all.
    """
    channel = get_channel(SLUG)
    report = SyncReport(batch=batch.pk)
    seen: set[str] = set()
    units = batch.units.exclude(channel_ref="").prefetch_related("mturk_hits").order_by("position")
    for unit in units:
        for ref in sorted(_refs(unit)):
            report.hits += 1
            try:
                listed = channel.submissions(ref)
            except ChannelError as exc:
                report.errors[ref] = str(exc)
                continue
            for submission in listed:
                report.listed += 1
                seen.add(submission.ref)
                _match(batch, submission, report)
    unlisted = (
        Assignment.objects.filter(unit__batch=batch, status__in=SETTLED).exclude(channel_assignment_id="")
        .values_list("channel_assignment_id", flat=True).distinct()
    )
    for ref in sorted(set(unlisted) - seen):
        try:
            found = channel.submission(ref)
        except ChannelError as exc:
            report.errors[ref] = str(exc)
            continue
        if found is None:
            for assignment in _ours(ref):
                _record(assignment, None, report)
        else:
            _match(batch, found, report)
    return report


def _match(batch: Batch, submission: Submission, report: SyncReport) -> None:
    ours = _ours(submission.ref)
    if not ours:
        MTurkSubmission.objects.update_or_create(
            batch=batch, mturk_assignment_id=submission.ref, assignment=None,
            defaults=dict(_mturk_fields(submission), verified=False, problem=NO_ANSWERS),
        )
        report.flagged += 1
        return
    for assignment in ours:
        _record(assignment, submission, report)
    MTurkSubmission.objects.filter(mturk_assignment_id=submission.ref, assignment=None).delete()


def _mturk_fields(submission: Submission | None) -> dict:
    if submission is None:
        return dict(hit_id="", worker_id="", mturk_status="", submitted_at=None)
    return dict(hit_id=submission.unit_ref, worker_id=submission.annotator_ref,
                mturk_status=submission.channel_status, submitted_at=submission.submitted_at)


def _record(assignment: Assignment, submission: Submission | None, report: SyncReport) -> None:
    if submission is None:
        problems = [UNKNOWN]
    else:
        problems = submission_problems(assignment, submission, _refs(assignment.unit), channel=SLUG)
    verified = not problems
    with transaction.atomic():
        MTurkSubmission.objects.update_or_create(
            assignment=assignment,
            defaults=dict(_mturk_fields(submission), batch=assignment.unit.batch,
                          mturk_assignment_id=assignment.channel_assignment_id,
                          verified=verified, problem="; ".join(problems)),
        )
        if submission is not None and _update_status(assignment, submission, problems, verified):
            report.updated += 1
    if verified:
        report.verified += 1
    else:
        report.flagged += 1


def _update_status(assignment: Assignment, submission: Submission, problems: list[str], verified: bool) -> bool:
    """Mirror MTurk's state on our Assignment when the MTurk assignment really is this one's
    (same worker and HIT): approved/rejected always, submitted only for verified work."""
    if any(p.startswith((WORKER_MISMATCH, UNIT_MISMATCH)) for p in problems):
        return False
    target = submission.status
    if not target or target == assignment.status:
        return False
    if target == Assignment.Status.SUBMITTED and (not verified or assignment.status in SETTLED):
        return False
    values = {"status": target}
    if assignment.submitted_at is None:
        values["submitted_at"] = submission.submitted_at or timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(**values)
    for name, value in values.items():
        setattr(assignment, name, value)
    return True


def mturk_sync_open_batches() -> list[SyncReport]:
    """Sync every open MTurk batch that has published HITs (the periodic beat task)."""
    reports = []
    batches = Batch.objects.filter(channel=SLUG, status=Batch.Status.OPEN, units__channel_ref__gt="").distinct()
    for batch in batches.order_by("pk"):
        try:
            reports.append(mturk_sync_batch(batch=batch))
        except ChannelError as exc:
            log.warning("MTurk sync of batch %s failed: %s", batch.pk, exc)
            reports.append(SyncReport(batch=batch.pk, errors={"batch": str(exc)}))
    return reports


def mturk_hit_of(unit: Unit) -> MTurkHit | None:
    """The HIT a unit is published as now (its latest round)."""
    return unit.mturk_hits.filter(hit_id=unit.channel_ref).first() if unit.channel_ref else None
