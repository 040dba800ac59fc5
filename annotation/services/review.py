"""Reviewing work on a recruiting site through its channel, given who is kept: approve / reject with feedback,
messages, blocks and the private qualification (bonuses: ``services.bonuses``).

Who is kept is decided elsewhere (the quality app's runs): annotation never imports quality, so
a decision source registers itself here (``register_decision_source``), and the admin finds it
through ``decisions_for``. Only verified submissions (see ``services.sync``) are approved,
rejected or paid; every review syncs first so verification is fresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.channels import Channel, ChannelError, MessageResult, get_channel
from annotation.channels.calls import records_calls
from annotation.models import Assignment, Batch, Response, Submission

from .assignments import assignments_set_status
from .ended import ended_settle
from .sync import batch_sync

WHO = ("all", "kept", "dropped")


class ReviewError(ValueError):
    """The review cannot run as asked (no decisions, no feedback, a bad amount...)."""


def review_check(*, batch: Batch, operation: str, **texts: Any) -> Channel:
    """The batch's channel, once it is known that it offers `operation` and takes `texts` (the
    review form's fields: reject_feedback, approve_feedback, rejection_category, subject, text):
    ReviewError saying why not, before any call (no sync, nothing half done at the channel)."""
    channel = get_channel(batch.channel)
    problems = channel.review_rules.problems(operation, texts, channel=channel.short_title)
    if problems:
        raise ReviewError("; ".join(f"{name.replace('_', ' ')}: {why}" for name, why in problems.items()))
    return channel


@dataclass(frozen=True)
class Decisions:
    """Who is kept: annotator id -> keep, and where that comes from (e.g. "quality run 4 of 2026-11-28 10:05")."""

    source: str
    keep: dict[int, bool]


DecisionSource = Callable[[Batch], "Decisions | None"]
_SOURCES: list[DecisionSource] = []


def register_decision_source(source: DecisionSource) -> DecisionSource:
    if source not in _SOURCES:
        _SOURCES.append(source)
    return source


def decisions_for(batch: Batch) -> Decisions:
    """The decisions of the first registered source that has some for the batch."""
    for source in _SOURCES:
        found = source(batch)
        if found is not None:
            return found
    raise ReviewError(f"there are no quality decisions for “{batch.project}”: run the quality rules first")


@dataclass
class ReviewReport:
    approved: int = 0
    rejected: int = 0
    paid: int = 0
    skipped: dict[str, str] = field(default_factory=dict)  # the channel's work or participant id -> why
    failed: dict[str, str] = field(default_factory=dict)
    #: work of people whose part the study ended (never rejected): approved, asked to return
    ended_approved: int = 0
    sent_back: int = 0

    def summary(self) -> str:
        parts = [f"{self.approved} approved", f"{self.rejected} rejected"]
        if self.ended_approved or self.sent_back:
            parts.append(
                f"ended by the study (never rejected): {self.ended_approved} approved, {self.sent_back} asked to return"
            )
        if self.paid:
            parts.append(f"{self.paid} bonus(es) paid")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.failed:
            parts.append(f"{len(self.failed)} failed: " + "; ".join(f"{k}: {v}" for k, v in self.failed.items()))
        return ", ".join(parts)


@records_calls
def decisions_apply(
    *,
    batch: Batch,
    decisions: Decisions,
    reject_feedback: str,
    approve_feedback: str = "",
    reject_category: str = "",
    sync: bool = True,
) -> ReviewReport:
    """Approve the verified, still Submitted work of kept annotators; reject the others' with
    ``reject_feedback`` (the participant is told why) and ``reject_category`` where the channel
    asks for one ("": the batch's). Unverified work is never approved: it is listed in
    ``skipped`` with its problem. Texts the channel would refuse are refused before any call.
    Safe to repeat: reviewed work is left alone.
    """
    review_check(
        batch=batch,
        operation="review",
        reject_feedback=reject_feedback,
        approve_feedback=approve_feedback,
        rejection_category=reject_category,
    )
    channel = _review_start(batch, reject_feedback, sync=sync)
    needed = channel.failed_checks_to_reject(batch, category=reject_category)
    report = ReviewReport()
    _settle_ended(batch, channel, report)
    pending = Submission.objects.filter(batch=batch, review=Submission.Review.NONE, ended="")
    for sub in pending.select_related("assignment__annotator", "assignment__unit").order_by("id"):
        keep = decisions.keep.get(sub.assignment.annotator_id) if sub.assignment else None
        why = _not_reviewable(sub, keep, channel.awaiting_review_status)
        if not why and keep is False and needed:
            why = _too_few_failed_checks(sub, batch, needed, channel.short_title)
        if why or sub.assignment is None:  # (no assignment: not reviewable, says _not_reviewable)
            report.skipped[sub.ref] = why
            continue
        try:
            if keep:
                channel.approve(sub.assignment, feedback=approve_feedback)
            else:
                channel.reject(sub.assignment, feedback=reject_feedback, category=reject_category)
        except ChannelError as exc:
            report.failed[sub.ref] = str(exc)
            continue
        _reviewed(
            sub,
            approved=bool(keep),
            feedback=approve_feedback if keep else reject_feedback,
            word=channel.reviewed_status(approved=bool(keep)),
        )
        if keep:
            report.approved += 1
        else:
            report.rejected += 1
    return report


@records_calls
def reject_unverified(*, batch: Batch, feedback: str, category: str = "", sync: bool = True) -> ReviewReport:
    """Reject what the channel holds as awaiting review but sync could not verify (a forged
    completion token, no or unfinished answers on our pages, another participant or posting).

    The review above never approves such work, but a channel may approve and pay what is left
    waiting (MTurk, when the HIT's auto-approval delay runs out); rejecting it is the only way
    it is not paid. Safe to repeat: reviewed submissions are left alone.
    """
    review_check(batch=batch, operation="reject_unverified", reject_feedback=feedback, rejection_category=category)
    channel = _review_start(batch, feedback, sync=sync)
    report = ReviewReport()
    _settle_ended(batch, channel, report)
    for sub in unverified_pending(batch).order_by("id"):
        try:
            channel.reject_ref(sub.ref, feedback=feedback, category=category)
        except ChannelError as exc:
            report.failed[sub.ref] = str(exc)
            continue
        _reviewed(sub, approved=False, feedback=feedback, word=channel.reviewed_status(approved=False))
        report.rejected += 1
    return report


def _review_start(batch: Batch, reject_feedback: str, *, sync: bool) -> Channel:
    """Refuse a review that could reject without feedback; sync first so verification is fresh."""
    if not reject_feedback.strip():
        raise ReviewError("rejecting needs feedback: the worker is told why")
    if sync:
        batch_sync(batch=batch)
    return get_channel(batch.channel)


def _settle_ended(batch: Batch, channel: Channel, report: ReviewReport) -> None:
    """Work of people whose part the study ended: asked back or approved, never rejected."""
    settled = ended_settle(batch=batch, channel=channel, approve=True)
    report.ended_approved, report.sent_back = settled.approved, settled.sent_back
    report.failed.update(settled.failed)


def unverified_pending(batch: Batch):
    """Unverified submissions the channel still holds as awaiting review, but for the work of
    people whose part the study ended (never rejected: ``services.ended``)."""
    waiting = get_channel(batch.channel).awaiting_review_status
    return Submission.objects.filter(
        batch=batch, verified=False, channel_status=waiting, review=Submission.Review.NONE, ended=""
    )


def _not_reviewable(sub: Submission, keep: bool | None, waiting: str) -> str:
    if not sub.verified or sub.assignment is None:
        return f"not verified: {sub.problem or 'no assignment of ours'}"
    if sub.channel_status != waiting:
        return f"the channel says {sub.channel_status or 'nothing'}"
    if keep is None:
        return "the quality run has no decision on this annotator"
    return ""


def _too_few_failed_checks(sub: Submission, batch: Batch, needed: int, channel: str) -> str:
    """Why a rejection for failed checks is not the channel's policy for this person (empty: it is)."""
    assert sub.assignment is not None
    failed = Response.objects.filter(
        assignment__annotator_id=sub.assignment.annotator_id, assignment__unit__batch=batch, check_passed=False
    ).count()
    if failed >= needed:
        return ""
    return (
        f"{channel}'s policy: a rejection for failed checks needs {needed} failed check answers and this person "
        f"failed {failed}; approve the work, or ask them to return it"
    )


def _reviewed(sub: Submission, *, approved: bool, feedback: str, word: str) -> None:
    review, status = (
        (Submission.Review.APPROVED, Assignment.Status.APPROVED)
        if approved
        else (Submission.Review.REJECTED, Assignment.Status.REJECTED)
    )
    with transaction.atomic():
        Submission.objects.filter(pk=sub.pk).update(
            review=review, feedback=feedback, reviewed_at=timezone.now(), channel_status=word
        )
        if sub.assignment_id is not None:
            assignments_set_status(assignments=Assignment.objects.filter(pk=sub.assignment_id), status=status)


@records_calls
def submissions_chosen(*, batch: Batch, who: str, decisions: Decisions | None, sync: bool = True) -> list[Submission]:
    """The latest verified submission of each worker of the batch that ``who`` names (all,
    kept, dropped), after a sync so that verification is fresh."""
    if who not in WHO:
        raise ReviewError(f"who is one of {', '.join(WHO)}, not {who!r}")
    if who != "all" and decisions is None:
        raise ReviewError(f"choosing the {who} workers needs quality decisions")
    if sync:
        batch_sync(batch=batch)
    keep = decisions.keep if decisions is not None else {}
    latest: dict[str, Submission] = {}
    verified = Submission.objects.filter(batch=batch, verified=True, assignment__isnull=False)
    for sub in verified.select_related("assignment__annotator").order_by("submitted_at", "id"):
        if sub.assignment is None:  # excluded by the filter; says so to the type checker
            continue
        decision = keep.get(sub.assignment.annotator_id)
        if who == "all" or (decision is not None and decision == (who == "kept")):
            latest[sub.participant_ref] = sub
    return list(latest.values())


def _worker_ids(batch: Batch, who: str, decisions: Decisions | None, worker_ids: list[str] | None) -> list[str]:
    if worker_ids is not None:
        return list(dict.fromkeys(worker_ids))
    return [s.participant_ref for s in submissions_chosen(batch=batch, who=who, decisions=decisions)]


@records_calls
def participants_message(
    *,
    batch: Batch,
    subject: str,
    text: str,
    who: str = "all",
    decisions: Decisions | None = None,
    worker_ids: list[str] | None = None,
) -> MessageResult:
    """Message the workers ``who`` names (or exactly ``worker_ids``); the channel splits the
    list into calls it accepts (MTurk: at most 100 workers per call)."""
    review_check(batch=batch, operation="message", subject=subject, text=text)
    ids = _worker_ids(batch, who, decisions, worker_ids)
    if not ids:
        return MessageResult(calls=0)
    try:
        return get_channel(batch.channel).message(ids, subject=subject, text=text)
    except ValueError as exc:  # subject or text empty or too long
        raise ReviewError(str(exc)) from exc


@records_calls
def participants_block(
    *,
    batch: Batch,
    reason: str,
    who: str = "dropped",
    decisions: Decisions | None = None,
    worker_ids: list[str] | None = None,
) -> tuple[int, dict[str, str]]:
    """Block the workers ``who`` names from our HITs; (how many, worker id -> why one failed)."""
    if not reason.strip():
        raise ReviewError("a block needs a reason")
    channel = review_check(batch=batch, operation="block")
    blocked, failed = 0, {}
    for worker_id in _worker_ids(batch, who, decisions, worker_ids):
        try:
            channel.block(worker_id, reason=reason)
        except ChannelError as exc:
            failed[worker_id] = str(exc)
        else:
            blocked += 1
    return blocked, failed


@records_calls
def qualification_grant(
    *, batch: Batch, who: str = "kept", decisions: Decisions | None = None, worker_ids: list[str] | None = None
) -> tuple[str, int]:
    """Grant the batch's private qualification (HIT setting ``private_qualification``) to the
    workers ``who`` names; (its id on the channel, how many workers)."""
    channel = review_check(batch=batch, operation="grant")
    ids = _worker_ids(batch, who, decisions, worker_ids)
    type_id = channel.grant_batch_qualification(
        ids, batch=batch, description=f"Trusted annotators of {batch.project.name}, granted by the researcher."
    )
    return type_id, len(ids)
