"""Assignments: list, read, approve, reject, and bonuses.

Approve and reject are safe to repeat: when MTurk says the assignment is no longer Submitted
because an earlier (retried) call already did the same thing, that counts as success.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from .client import MTurkClient, call, check_token
from .entities import AssignmentInfo, Hit
from .errors import INVALID_ASSIGNMENT_STATE, MTurkRequestError, is_duplicate_token
from .fees import money

STATUSES = ("Submitted", "Approved", "Rejected")
MAX_FEEDBACK = 1024


def list_assignments_for_hit(
    client: MTurkClient,
    hit_id: str,
    *,
    statuses: Iterable[str] = STATUSES,
    page_size: int = 100,
) -> list[AssignmentInfo]:
    """Every submitted, approved or rejected assignment of the HIT, following NextToken.

    Accepted-but-unsubmitted assignments are never listed by MTurk.
    """
    wanted = list(statuses)
    if not wanted or set(wanted) - set(STATUSES):
        raise ValueError(f"statuses must be a non-empty subset of {STATUSES}")
    if not 1 <= page_size <= 100:
        raise ValueError("page_size is between 1 and 100")
    found: list[AssignmentInfo] = []
    params: dict[str, Any] = dict(HITId=hit_id, MaxResults=page_size, AssignmentStatuses=wanted)
    while True:
        page = call(client, "ListAssignmentsForHIT", **params)
        found.extend(AssignmentInfo.from_api(a) for a in page.get("Assignments", ()))
        token = page.get("NextToken")
        if not token:
            return found
        params["NextToken"] = token


def get_assignment(client: MTurkClient, assignment_id: str) -> tuple[AssignmentInfo, Hit]:
    """The assignment and its HIT (use it to verify a submission before paying)."""
    response = call(client, "GetAssignment", AssignmentId=assignment_id)
    return AssignmentInfo.from_api(response["Assignment"]), Hit.from_api(response["HIT"])


def approve_assignment(
    client: MTurkClient, assignment_id: str, *, feedback: str = "", override_rejection: bool = False
) -> None:
    """Approve (and pay) a Submitted assignment, or a Rejected one with ``override_rejection``."""
    _check_feedback(feedback, required=False)
    params: dict[str, Any] = dict(AssignmentId=assignment_id)
    if feedback:
        params["RequesterFeedback"] = feedback
    if override_rejection:
        params["OverrideRejection"] = True
    try:
        call(client, "ApproveAssignment", **params)
    except MTurkRequestError as exc:
        if not _already(client, exc, assignment_id, "Approved"):
            raise


def reject_assignment(client: MTurkClient, assignment_id: str, *, feedback: str) -> None:
    """Reject a Submitted assignment; MTurk requires feedback telling the worker why."""
    _check_feedback(feedback, required=True)
    try:
        call(client, "RejectAssignment", AssignmentId=assignment_id, RequesterFeedback=feedback)
    except MTurkRequestError as exc:
        if not _already(client, exc, assignment_id, "Rejected"):
            raise


def send_bonus(
    client: MTurkClient,
    *,
    worker_id: str,
    assignment_id: str,
    amount: Decimal | str,
    reason: str,
    unique_request_token: str,
) -> None:
    """Pay a bonus once per token: a repeated token (a retry) is a no-op, not a second payment."""
    check_token(unique_request_token)
    value = money(amount)
    if value <= 0:
        raise ValueError("a bonus is more than $0.00")
    if not reason.strip():
        raise ValueError("a bonus needs a reason (the worker sees it)")
    try:
        call(
            client,
            "SendBonus",
            WorkerId=worker_id,
            AssignmentId=assignment_id,
            BonusAmount=f"{value:.2f}",
            Reason=reason,
            UniqueRequestToken=unique_request_token,
        )
    except MTurkRequestError as exc:
        if not is_duplicate_token(exc):
            raise


def _check_feedback(feedback: str, *, required: bool) -> None:
    if required and not feedback.strip():
        raise ValueError("feedback is required: the worker is told why")
    if len(feedback) > MAX_FEEDBACK:
        raise ValueError(f"feedback is longer than {MAX_FEEDBACK} characters")


def _already(client: MTurkClient, exc: MTurkRequestError, assignment_id: str, status: str) -> bool:
    """Whether a refused approve/reject failed only because it had already happened."""
    if exc.turk_error_code != INVALID_ASSIGNMENT_STATE:
        return False
    assignment, _ = get_assignment(client, assignment_id)
    return assignment.status == status
