"""Submissions: list (paginated), read, approve, reject, bulk-approve, request a return.

The submission transition is idempotent on Prolific (a repeated identical request is
ignored), so these calls are retried on 429/5xx and lost answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .client import ProlificClient, call
from .entities import Submission, SubmissionPage
from .errors import ProlificNotFoundError

REJECTION_CATEGORIES = frozenset(
    {
        "TOO_QUICKLY",
        "TOO_SLOWLY",
        "FAILED_INSTRUCTIONS",
        "INCOMP_LONGITUDINAL",
        "FAILED_CHECK",
        "LOW_EFFORT",
        "MALINGERING",
        "NO_CODE",
        "BAD_CODE",
        "NO_DATA",
        "UNSUPP_DEVICE",
        "OTHER",
    }
)
MIN_REJECTION_MESSAGE = 100
MAX_BULK_APPROVE = 1000


def list_submissions(
    client: ProlificClient, study_id: str, *, page: int = 1, page_size: int = 20, status: str | None = None
) -> SubmissionPage:
    """One page of ``GET /submissions/?study=``; a page past the end is an empty page."""
    params: dict[str, Any] = {"study": study_id, "page": page, "page_size": page_size}
    if status:
        params["status"] = status
    try:
        body = call(client, "GET", "submissions/", operation="list_submissions", idempotent=True, params=params)
    except ProlificNotFoundError:
        if page == 1:
            raise
        return SubmissionPage(results=(), count=0, has_next=False)
    next_link = ((body.get("_links") or {}).get("next") or {}).get("href")
    results = tuple(Submission.from_api({"study_id": study_id, **item}) for item in body.get("results") or ())
    return SubmissionPage(
        results=results, count=int((body.get("meta") or {}).get("count") or 0), has_next=bool(next_link)
    )


def iter_submissions(
    client: ProlificClient, study_id: str, *, page_size: int = 100, status: str | None = None
) -> Iterator[Submission]:
    """Every submission of the study, following the pages until ``_links.next`` is null."""
    page = 1
    while True:
        batch = list_submissions(client, study_id, page=page, page_size=page_size, status=status)
        yield from batch.results
        if not batch.has_next:
            return
        page += 1


def get_submission(client: ProlificClient, submission_id: str) -> Submission:
    return Submission.from_api(
        call(client, "GET", f"submissions/{submission_id}/", operation="get_submission", idempotent=True)
    )


def _transition(client: ProlificClient, submission_id: str, body: dict[str, Any]) -> Submission:
    return Submission.from_api(
        call(
            client,
            "POST",
            f"submissions/{submission_id}/transition/",
            operation=f"submission_{body['action'].lower()}",
            idempotent=True,
            json=body,
        )
    )


def approve_submission(client: ProlificClient, submission_id: str) -> Submission:
    """Approve (and pay) a submission in AWAITING REVIEW; Prolific refuses other states."""
    return _transition(client, submission_id, {"action": "APPROVE"})


def reject_submission(client: ProlificClient, submission_id: str, *, category: str, message: str) -> Submission:
    """Reject with one of Prolific's categories and a message (100+ characters) the
    participant reads. Rejections count against participants: prefer ``request_return``."""
    if category not in REJECTION_CATEGORIES:
        raise ValueError(f"unknown rejection category {category!r}; known: {', '.join(sorted(REJECTION_CATEGORIES))}")
    if len(message.strip()) < MIN_REJECTION_MESSAGE:
        raise ValueError(f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} characters")
    return _transition(client, submission_id, {"action": "REJECT", "message": message, "rejection_category": category})


def complete_submission(client: ProlificClient, submission_id: str, *, completion_code: str) -> Submission:
    """Complete a submission with a researcher-actor code (its actions then run)."""
    return _transition(client, submission_id, {"action": "COMPLETE", "completion_code": completion_code})


def bulk_approve(client: ProlificClient, submission_ids: Iterable[str]) -> None:
    """Approve up to 1000 submissions in one call (Prolific processes it asynchronously:
    re-read the submissions to see the outcome)."""
    ids = list(submission_ids)
    if not 1 <= len(ids) <= MAX_BULK_APPROVE:
        raise ValueError(f"bulk approve takes 1 to {MAX_BULK_APPROVE} submission ids")
    call(
        client,
        "POST",
        "submissions/bulk-approve/",
        operation="bulk_approve",
        idempotent=True,
        json={"submission_ids": ids},
    )


def request_return(client: ProlificClient, submission_id: str, *, reasons: Iterable[str]) -> Submission:
    """Ask the participant to return the submission (frees the place without a rejection)."""
    reasons = [str(r) for r in reasons]
    if not reasons:
        raise ValueError("give at least one reason")
    return Submission.from_api(
        call(
            client,
            "POST",
            f"submissions/{submission_id}/request-return/",
            operation="request_return",
            idempotent=True,
            json={"request_return_reasons": reasons},
        )
    )
