"""Sync: what the batch's channel says about the work on each posting (MTurk: a HIT's
assignments), matched with the answers we saved.

Every piece of work gets a ``Submission`` row: verified when the channel knows it, its
participant and posting are the ones our Assignment names, it carries our completion token and
every item was saved here; otherwise flagged with the problem. Only verified work is ever
approved or paid (see services.review).

Sync is also where the site confirms the ids work was entered under (``Assignment.confirmed``):
work the site knows, by that participant on that posting, is confirmed; work it does not know,
or knows as somebody else's, is held apart (no quality run counts it for or against anybody).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from annotation.channels import ChannelError, SubmissionInfo, channel_choices, get_channel
from annotation.channels.base import (
    NO_ANSWERS,
    UNIT_MISMATCH,
    UNKNOWN,
    WORKER_MISMATCH,
    submission_problems,
    unconfirmed_by,
)
from annotation.channels.calls import records_calls
from annotation.models import Assignment, Batch, Posting, Response, Submission, Unit
from annotation.selectors.study import ended_by_study
from annotation.services.adjudication import adjudication_queue_confirmed

from .assignments import assignments_set_status
from .ended import ended_settle

log = logging.getLogger(__name__)
SETTLED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)


@dataclass
class SyncReport:
    batch: int
    hits: int = 0  # postings asked about
    listed: int = 0  # pieces of work the channel listed
    verified: int = 0
    flagged: int = 0
    updated: int = 0  # our Assignments whose status changed
    ended: int = 0  # work of people whose part the study ended (never rejected)
    sent_back: int = 0  # of it, asked back now (Prolific: request-return)
    errors: dict[str, str] = field(default_factory=dict)  # posting or work id -> reason

    def summary(self) -> str:
        text = (
            f"{self.hits} posting(s), {self.listed} submission(s): {self.verified} verified, "
            f"{self.flagged} flagged, {self.updated} status change(s)"
        )
        if self.ended:
            text += f"; {self.ended} ended by the study ({self.sent_back} asked to return now)"
        return text + (f"; {len(self.errors)} error(s)" if self.errors else "")

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _refs(unit: Unit) -> set[str]:
    return {p.ref for p in unit.postings.all()} | ({unit.channel_ref} - {""})


def _ours(ref: str, channel: str) -> list[Assignment]:
    return list(
        Assignment.objects.filter(channel_assignment_id=ref, unit__batch__channel=channel)
        .select_related("annotator", "unit__batch")
        .prefetch_related(
            Prefetch("responses", queryset=Response.objects.only("id", "assignment_id", "completed_at")),
            "unit__postings",
        )
    )


@records_calls
def batch_sync(*, batch: Batch) -> SyncReport:
    """Pull every HIT's assignments of the batch and match them with our Assignments.

    Our submitted assignments the channel did not list are looked up one by one; one the
    channel does not know is flagged. Idempotent: a second sync changes nothing that did not
    change. Raises ``ChannelUnavailable`` only when the channel cannot be reached at all.
    """
    channel = get_channel(batch.channel)
    report = SyncReport(batch=batch.pk)
    ended = ended_by_study(batch)
    seen: set[str] = set()
    asked: set[str] = set()  # a posting shared by units (a Prolific study) is asked once
    units = batch.units.exclude(channel_ref="").prefetch_related("postings").order_by("position")
    for unit in units:
        for ref in sorted(_refs(unit) - asked):
            asked.add(ref)
            report.hits += 1
            try:
                listed = channel.submissions(ref)
            except ChannelError as exc:
                report.errors[ref] = str(exc)
                continue
            for submission in listed:
                report.listed += 1
                seen.add(submission.ref)
                _match(batch, submission, report, ended)
    unlisted = (
        Assignment.objects.filter(unit__batch=batch, status__in=SETTLED)
        .exclude(channel_assignment_id="")
        .values_list("channel_assignment_id", flat=True)
        .distinct()
    )
    for ref in sorted(set(unlisted) - seen):
        try:
            found = channel.submission(ref)
        except ChannelError as exc:
            report.errors[ref] = str(exc)
            continue
        if found is None:
            for assignment in _ours(ref, batch.channel):
                _record(assignment, None, report, ended)
        else:
            _match(batch, found, report, ended)
    if channel.sends_back:  # ask back now what the study ended; reviews settle the rest
        report.sent_back = ended_settle(batch=batch, channel=channel, approve=False).sent_back
    report.ended = Submission.objects.filter(batch=batch).exclude(ended="").count()
    return report


def _match(batch: Batch, submission: SubmissionInfo, report: SyncReport, ended: dict[int, str]) -> None:
    ours = _ours(submission.ref, batch.channel)
    if not ours:
        orphan, _created = Submission.objects.update_or_create(
            batch=batch,
            ref=submission.ref,
            assignment=None,
            defaults=dict(_channel_fields(submission), verified=False, problem=NO_ANSWERS, ended=submission.ended),
        )
        _asked_already(orphan, submission)
        report.flagged += 1
        return
    for assignment in ours:
        _record(assignment, submission, report, ended)
    Submission.objects.filter(ref=submission.ref, assignment=None).delete()


def _channel_fields(submission: SubmissionInfo | None) -> dict:
    if submission is None:
        return dict(posting_ref="", participant_ref="", channel_status="", submitted_at=None)
    return dict(
        posting_ref=submission.unit_ref,
        participant_ref=submission.annotator_ref,
        channel_status=submission.channel_status,
        submitted_at=submission.submitted_at,
    )


def _asked_already(sub: Submission, submission: SubmissionInfo) -> None:
    """Ended work the site already asked back (Prolific: the return code's own action) is
    recorded as asked, so it is not asked twice."""
    if sub.ended and submission.return_requested and sub.review == Submission.Review.NONE:
        Submission.objects.filter(pk=sub.pk).update(review=Submission.Review.RETURN_ASKED)


def _record(
    assignment: Assignment, submission: SubmissionInfo | None, report: SyncReport, ended: dict[int, str]
) -> None:
    if submission is None:
        problems = [UNKNOWN]
    else:
        problems = submission_problems(
            assignment, submission, _refs(assignment.unit), channel=assignment.unit.batch.channel
        )
    verified = not problems
    unconfirmed = unconfirmed_by(problems)
    with transaction.atomic():
        if (not unconfirmed, unconfirmed) != (assignment.confirmed, assignment.unconfirmed_reason):
            Assignment.objects.filter(pk=assignment.pk).update(
                confirmed=not unconfirmed, unconfirmed_reason=unconfirmed[:300]
            )
            if not unconfirmed and not assignment.confirmed:  # its items may now have their first two
                adjudication_queue_confirmed(assignment_id=assignment.pk)
            assignment.confirmed, assignment.unconfirmed_reason = not unconfirmed, unconfirmed[:300]
        sub, _created = Submission.objects.update_or_create(
            assignment=assignment,
            defaults=dict(
                _channel_fields(submission),
                batch=assignment.unit.batch,
                ref=assignment.channel_assignment_id,
                verified=verified,
                problem="; ".join(problems),
                ended=ended.get(assignment.annotator_id) or (submission.ended if submission else ""),
            ),
        )
        if submission is not None:
            _asked_already(sub, submission)
        if submission is not None and _update_status(assignment, submission, problems, verified):
            report.updated += 1
    if verified:
        report.verified += 1
    else:
        report.flagged += 1


def _update_status(assignment: Assignment, submission: SubmissionInfo, problems: list[str], verified: bool) -> bool:
    """Mirror the channel's state on our Assignment when its work really is this one's
    (same worker and HIT): approved/rejected always, submitted only for verified work, and
    released (returned or timed out: its slot goes to somebody else) unless already reviewed."""
    if any(p.startswith((WORKER_MISMATCH, UNIT_MISMATCH)) for p in problems):
        return False
    target = submission.status
    if not target or target == assignment.status:
        return False
    if target == Assignment.Status.SUBMITTED and (not verified or assignment.status in SETTLED):
        return False
    if target == Assignment.Status.RELEASED and assignment.status in (
        Assignment.Status.APPROVED,
        Assignment.Status.REJECTED,
    ):
        return False
    if assignment.submitted_at is None and target in SETTLED:
        assignment.submitted_at = submission.submitted_at or timezone.now()
    assignments_set_status(
        assignments=Assignment.objects.filter(pk=assignment.pk), status=target, submitted_at=assignment.submitted_at
    )
    assignment.status = target
    return True


def open_batches_sync() -> list[SyncReport]:
    """Sync every open batch of a recruiting site that has postings (the periodic beat task)."""
    reports = []
    remote = [slug for slug, _title in channel_choices() if get_channel(slug).recruits_remotely]
    batches = Batch.objects.filter(channel__in=remote, status=Batch.Status.OPEN, units__channel_ref__gt="").distinct()
    for batch in batches.order_by("pk"):
        try:
            reports.append(batch_sync(batch=batch))
        except ChannelError as exc:
            log.warning("sync of batch %s failed: %s", batch.pk, exc)
            reports.append(SyncReport(batch=batch.pk, errors={"batch": str(exc)}))
    return reports


def posting_of(unit: Unit) -> Posting | None:
    """The HIT a unit is published as now (its latest round)."""
    return unit.postings.filter(ref=unit.channel_ref).first() if unit.channel_ref else None
