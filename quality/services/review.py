"""Review after a quality run: the run decides who is kept; annotation's MTurk review services
approve / reject (with the feedback MTurk requires), pay bonuses, message, block and grant the
private qualification through the channel.

Importing this module registers the latest finished run as the decision source of
``annotation.services.review`` (registered when the quality app is ready, quality/apps.py),
which is how the batch admin's review page reaches the quality decisions without annotation
importing quality.
"""

from __future__ import annotations

from annotation.channels import MessageResult
from annotation.models import Batch
from annotation.services.bonuses import bonus_pay
from annotation.services.review import (
    Decisions,
    ReviewError,
    ReviewReport,
    decisions_apply,
    participants_block,
    participants_message,
    qualification_grant,
    register_decision_source,
)
from quality.models import AnnotatorDecision, QualityRun
from quality.selectors import latest_run

__all__ = [
    "ReviewError",
    "ReviewReport",
    "review_apply",
    "review_block",
    "review_bonus",
    "review_decisions",
    "review_grant_qualification",
    "review_message",
]


def run_decisions(run: QualityRun) -> Decisions:
    """Who the run keeps, named as the report names the run: its number within the project."""
    keep = dict(AnnotatorDecision.objects.filter(run=run).values_list("annotator_id", "keep"))
    return Decisions(source=f"quality run {run.number} of {run.created_at:%Y-%m-%d %H:%M}", keep=keep)


@register_decision_source
def latest_decisions(batch: Batch) -> Decisions | None:
    """The decisions of the project's latest finished quality run (None: there is none)."""
    run = latest_run(batch.project)
    return run_decisions(run) if run is not None else None


def review_decisions(*, batch: Batch, run: QualityRun | None = None) -> Decisions:
    run = run or latest_run(batch.project)
    if run is None:
        raise ReviewError(f"“{batch.project}” has no finished quality run: run the quality rules first")
    if run.project_id != batch.project_id or run.status != QualityRun.Status.DONE:
        raise ReviewError("the quality run must be a finished run of the batch's project")
    return run_decisions(run)


def review_apply(
    *, batch: Batch, reject_feedback: str, approve_feedback: str = "", run: QualityRun | None = None
) -> ReviewReport:
    """Approve the verified work of annotators the run (default: the latest) keeps, reject the
    others' with ``reject_feedback``; unverified work is never approved or paid."""
    if not reject_feedback.strip():
        raise ReviewError("rejecting needs feedback: the worker is told why")
    return decisions_apply(
        batch=batch,
        decisions=review_decisions(batch=batch, run=run),
        reject_feedback=reject_feedback,
        approve_feedback=approve_feedback,
    )


def review_bonus(
    *, batch: Batch, amount: str, reason: str, who: str = "kept", label: str = "bonus", run: QualityRun | None = None
) -> ReviewReport:
    """A bonus once per worker the run keeps (``who``), with a request token per worker and label."""
    return bonus_pay(
        batch=batch,
        amount=amount,
        reason=reason,
        who=who,
        label=label,
        decisions=review_decisions(batch=batch, run=run),
    )


def review_message(
    *,
    batch: Batch,
    subject: str,
    text: str,
    who: str = "all",
    run: QualityRun | None = None,
    worker_ids: list[str] | None = None,
) -> MessageResult:
    decisions = review_decisions(batch=batch, run=run) if who != "all" and worker_ids is None else None
    return participants_message(
        batch=batch, subject=subject, text=text, who=who, decisions=decisions, worker_ids=worker_ids
    )


def review_block(
    *,
    batch: Batch,
    reason: str,
    who: str = "dropped",
    run: QualityRun | None = None,
    worker_ids: list[str] | None = None,
) -> tuple[int, dict[str, str]]:
    decisions = review_decisions(batch=batch, run=run) if who != "all" and worker_ids is None else None
    return participants_block(batch=batch, reason=reason, who=who, decisions=decisions, worker_ids=worker_ids)


def review_grant_qualification(
    *, batch: Batch, who: str = "kept", run: QualityRun | None = None, worker_ids: list[str] | None = None
) -> tuple[str, int]:
    decisions = review_decisions(batch=batch, run=run) if who != "all" and worker_ids is None else None
    return qualification_grant(batch=batch, who=who, decisions=decisions, worker_ids=worker_ids)
