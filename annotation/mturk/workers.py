"""Workers and the account: messages, blocks, private qualifications, the balance."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from .client import MTurkClient, call
from .entities import Balance, NotifyFailure, NotifyResult, QualificationType
from .errors import MTurkRequestError

NOTIFY_BATCH = 100
MAX_SUBJECT = 200
MAX_MESSAGE = 4096


def get_account_balance(client: MTurkClient) -> Balance:
    response = call(client, "GetAccountBalance")
    return Balance(
        available=Decimal(response["AvailableBalance"]),
        on_hold=Decimal(response.get("OnHoldBalance") or "0.00"),
    )


def notify_workers(client: MTurkClient, *, worker_ids: Iterable[str], subject: str, message: str) -> NotifyResult:
    """E-mail workers (who worked for us) in calls of at most 100 ids; duplicates sent once."""
    if not subject.strip() or len(subject) > MAX_SUBJECT:
        raise ValueError(f"subject is 1 to {MAX_SUBJECT} characters")
    if not message.strip() or len(message) > MAX_MESSAGE:
        raise ValueError(f"message is 1 to {MAX_MESSAGE} characters")
    ids = list(dict.fromkeys(worker_ids))
    failures: list[NotifyFailure] = []
    calls = 0
    for start in range(0, len(ids), NOTIFY_BATCH):
        response = call(
            client, "NotifyWorkers", WorkerIds=ids[start : start + NOTIFY_BATCH], Subject=subject, MessageText=message
        )
        calls += 1
        failures.extend(
            NotifyFailure(
                worker_id=f.get("WorkerId", ""),
                code=f.get("NotifyWorkersFailureCode", ""),
                message=f.get("NotifyWorkersFailureMessage", ""),
            )
            for f in response.get("NotifyWorkersFailureStatuses", ())
        )
    return NotifyResult(calls=calls, failures=tuple(failures))


def create_worker_block(client: MTurkClient, worker_id: str, *, reason: str) -> None:
    """Stop the worker from working on any of our HITs (the reason is kept by MTurk)."""
    if not reason.strip():
        raise ValueError("a block needs a reason")
    call(client, "CreateWorkerBlock", WorkerId=worker_id, Reason=reason)


def delete_worker_block(client: MTurkClient, worker_id: str, *, reason: str = "") -> None:
    params: dict[str, Any] = dict(WorkerId=worker_id)
    if reason:
        params["Reason"] = reason
    call(client, "DeleteWorkerBlock", **params)


def create_qualification_type(
    client: MTurkClient,
    *,
    name: str,
    description: str,
    keywords: str = "",
    reuse_existing: bool = True,
    test: str = "",
    answer_key: str = "",
    test_duration_seconds: int = 1800,
    retry_delay_seconds: int | None = None,
) -> QualificationType:
    """An Active qualification type we grant by hand (a private qualification), or, with a
    ``test`` (a QuestionForm) and its ``answer_key``, one MTurk grants itself: a worker takes the
    test on MTurk and gets the score the answer key gives (``annotation.mturk.qualification_tests``).
    Without ``retry_delay_seconds`` a worker may take the test once.

    Names are unique per requester: with ``reuse_existing`` an existing type of that exact
    name is returned instead of MTurk's error, so setting it up twice is harmless.
    """
    params: dict[str, Any] = dict(Name=name, Description=description, QualificationTypeStatus="Active")
    if keywords:
        params["Keywords"] = keywords
    if test:
        params.update(Test=test, AnswerKey=answer_key, TestDurationInSeconds=test_duration_seconds)
        if retry_delay_seconds is not None:
            params["RetryDelayInSeconds"] = retry_delay_seconds
    try:
        response = call(client, "CreateQualificationType", **params)
    except MTurkRequestError:
        existing = find_qualification_type(client, name) if reuse_existing else None
        if existing is None:
            raise
        return existing
    return QualificationType.from_api(response["QualificationType"])


def find_qualification_type(client: MTurkClient, name: str) -> QualificationType | None:
    """Our qualification type named exactly ``name``, or None."""
    params: dict[str, Any] = dict(Query=name, MustBeRequestable=False, MustBeOwnedByCaller=True, MaxResults=100)
    while True:
        page = call(client, "ListQualificationTypes", **params)
        for q in page.get("QualificationTypes", ()):
            if q.get("Name") == name:
                return QualificationType.from_api(q)
        if not page.get("NextToken"):
            return None
        params["NextToken"] = page["NextToken"]


def associate_qualification_with_worker(
    client: MTurkClient,
    *,
    qualification_type_id: str,
    worker_id: str,
    value: int = 1,
    send_notification: bool = False,
) -> None:
    """Grant (or update) a qualification to a worker."""
    call(
        client,
        "AssociateQualificationWithWorker",
        QualificationTypeId=qualification_type_id,
        WorkerId=worker_id,
        IntegerValue=value,
        SendNotification=send_notification,
    )
