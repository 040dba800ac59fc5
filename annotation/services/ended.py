"""The work of people whose part the study ended (consent declined, the comprehension check
failed, stopped by live quality; or the site's own sign: the study's return code, screened out).
They followed the rules, so no review rejects it (``services.review`` leaves it out): where the
site can, they are asked to give it back (Prolific's request-return: unpaid, the place freed,
never counted against them); finished work of somebody live quality stopped is approved; and on
a site that cannot take work back (MTurk), work submitted anyway is approved, since the site would
pay it anyway when its auto-approval delay runs out and cannot pay less than the reward
(docs/study-checks.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotation.channels import Channel, ChannelError, get_channel
from annotation.models import Assignment, Batch, Submission

from .assignments import assignments_set_status


@dataclass
class EndedReport:
    approved: int = 0
    sent_back: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # the channel's work id -> why


def ended_pending(batch: Batch) -> QuerySet[Submission]:
    """Work of people whose part the study ended that the site still holds for review."""
    waiting = get_channel(batch.channel).awaiting_review_status
    return Submission.objects.filter(batch=batch, review=Submission.Review.NONE, channel_status=waiting).exclude(
        ended=""
    )


def feedback_for(sub: Submission) -> str:
    return f"The study ended your part ({sub.ended}); this does not count against you."


def ended_settle(*, batch: Batch, channel: Channel, approve: bool) -> EndedReport:
    """Settle the ended work the site still holds for review, never rejecting any: asked back
    where the site can take it back, else (``approve``: at review, not at sync) approved. Finished
    work (verified: somebody live quality stopped at the end of their assignment) is approved at
    review. Safe to repeat: settled work is left alone."""
    report = EndedReport()
    for sub in ended_pending(batch).select_related("assignment").order_by("id"):
        finished = sub.verified and sub.assignment is not None
        try:
            if approve and (finished or (not channel.sends_back and sub.assignment is not None)):
                assert sub.assignment is not None
                channel.approve(sub.assignment, feedback=feedback_for(sub))
                _settled(sub, Submission.Review.APPROVED, channel.reviewed_status(approved=True), finished=finished)
                report.approved += 1
            elif channel.sends_back and not finished:
                word = channel.send_back(sub.ref, reason=feedback_for(sub))
                _settled(sub, Submission.Review.RETURN_ASKED, word, finished=False)
                report.sent_back += 1
        except ChannelError as exc:
            report.failed[sub.ref] = str(exc)
    return report


def _settled(sub: Submission, review: str, word: str, *, finished: bool) -> None:
    """Record how the ended work was settled. Only finished work becomes an approved assignment:
    an unfinished one stays released, so its place stays with whoever has it now."""
    with transaction.atomic():
        Submission.objects.filter(pk=sub.pk).update(
            review=review, feedback=feedback_for(sub), reviewed_at=timezone.now(), channel_status=word
        )
        if finished and review == Submission.Review.APPROVED and sub.assignment_id is not None:
            mine = Assignment.objects.filter(pk=sub.assignment_id)
            assignments_set_status(assignments=mine, status=Assignment.Status.APPROVED)
