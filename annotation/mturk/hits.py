"""HIT types and HITs: create, read, extend, expire, delete.

Every function takes a boto3 MTurk client (``make_client`` / ``client_from_settings``),
returns dataclasses, and never touches the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from .client import MTurkClient, call, check_token
from .entities import Hit, HitType
from .errors import HIT_ALREADY_EXISTS, MTurkError, MTurkRequestError, is_duplicate_token
from .fees import money
from .qualifications import check_requirements

_ENTITY_ID = re.compile(r"\b[A-Z0-9]{20,64}\b")
MAX_ANNOTATION = 255


def create_hit_type(
    client: MTurkClient,
    *,
    title: str,
    description: str,
    reward: Decimal | str,
    assignment_duration_seconds: int,
    auto_approval_delay_seconds: int = 3 * 24 * 3600,
    keywords: str = "",
    qualification_requirements: Iterable[dict[str, Any]] = (),
) -> HitType:
    """Register (or find: identical values give the same id) a HIT type."""
    requirements = check_requirements(qualification_requirements)
    amount = money(reward)
    params: dict[str, Any] = dict(
        Title=title,
        Description=description,
        Reward=f"{amount:.2f}",
        AssignmentDurationInSeconds=assignment_duration_seconds,
        AutoApprovalDelayInSeconds=auto_approval_delay_seconds,
        QualificationRequirements=requirements,
    )
    if keywords:
        params["Keywords"] = keywords
    response = call(client, "CreateHITType", **params)
    return HitType(
        hit_type_id=response["HITTypeId"],
        title=title,
        description=description,
        reward=amount,
        assignment_duration_seconds=assignment_duration_seconds,
        auto_approval_delay_seconds=auto_approval_delay_seconds,
        keywords=keywords,
        qualification_requirements=tuple(requirements),
    )


def create_hit_with_type(
    client: MTurkClient,
    *,
    hit_type_id: str,
    question_xml: str,
    lifetime_seconds: int,
    max_assignments: int,
    unique_request_token: str,
    requester_annotation: str = "",
) -> Hit:
    """Create a HIT of ``hit_type_id``; safe to repeat with the same token.

    botocore retries this non-idempotent call after a ServiceFault or a lost response, and a
    Celery task may run twice, so MTurk may already hold the HIT. It then answers
    ``HitAlreadyExists`` with the HIT id in the message: that HIT is fetched and returned,
    after checking it is the same work (HIT type and annotation). Tokens last 24 hours on MTurk.
    """
    check_token(unique_request_token)
    if len(requester_annotation) > MAX_ANNOTATION:
        raise ValueError(f"requester_annotation is longer than {MAX_ANNOTATION} characters")
    params: dict[str, Any] = dict(
        HITTypeId=hit_type_id,
        Question=question_xml,
        LifetimeInSeconds=lifetime_seconds,
        MaxAssignments=max_assignments,
        UniqueRequestToken=unique_request_token,
    )
    if requester_annotation:
        params["RequesterAnnotation"] = requester_annotation
    try:
        response = call(client, "CreateHITWithHITType", **params)
    except MTurkRequestError as exc:
        if exc.turk_error_code != HIT_ALREADY_EXISTS:
            raise
        return _existing_hit(client, exc, hit_type_id, requester_annotation)
    return Hit.from_api(response["HIT"])


def _existing_hit(client: MTurkClient, exc: MTurkRequestError, hit_type_id: str, requester_annotation: str) -> Hit:
    for candidate in _ENTITY_ID.findall(exc.message):
        try:
            hit = get_hit(client, candidate)
        except MTurkRequestError:
            continue
        if hit.hit_type_id != hit_type_id or hit.requester_annotation != requester_annotation:
            raise MTurkError(
                f"UniqueRequestToken already used for HIT {hit.hit_id} of other work "
                f"(HIT type {hit.hit_type_id}, annotation {hit.requester_annotation!r})",
                operation=exc.operation,
                code=exc.code,
                turk_error_code=exc.turk_error_code,
            ) from exc
        return hit
    raise MTurkError(
        f"HitAlreadyExists without a HIT id we can fetch: {exc.message}",
        operation=exc.operation,
        code=exc.code,
        turk_error_code=exc.turk_error_code,
    ) from exc


def get_hit(client: MTurkClient, hit_id: str) -> Hit:
    return Hit.from_api(call(client, "GetHIT", HITId=hit_id)["HIT"])


def update_expiration_for_hit(client: MTurkClient, hit_id: str, *, expire_at: datetime) -> None:
    """Move the HIT's expiration; a time in the past expires it now."""
    if expire_at.tzinfo is None:
        raise ValueError("expire_at must be timezone-aware")
    call(client, "UpdateExpirationForHIT", HITId=hit_id, ExpireAt=expire_at)


def expire_hit(client: MTurkClient, hit_id: str) -> None:
    """Stop new workers from accepting the HIT (work in progress may still be submitted)."""
    update_expiration_for_hit(client, hit_id, expire_at=datetime(2015, 1, 1, tzinfo=UTC))


def create_additional_assignments_for_hit(
    client: MTurkClient,
    hit_id: str,
    *,
    number: int,
    unique_request_token: str,
) -> None:
    """Add ``number`` assignments; safe to repeat with the same token (a repeat is a no-op).

    MTurk refuses to take a HIT from fewer than 10 assignments to 10 or more
    (``AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease``): publish a new HIT instead.
    """
    check_token(unique_request_token)
    if number < 1:
        raise ValueError("number must be at least 1")
    try:
        call(
            client,
            "CreateAdditionalAssignmentsForHIT",
            HITId=hit_id,
            NumberOfAdditionalAssignments=number,
            UniqueRequestToken=unique_request_token,
        )
    except MTurkRequestError as exc:
        if not is_duplicate_token(exc):
            raise


def delete_hit(client: MTurkClient, hit_id: str) -> None:
    """Dispose of a Reviewable HIT whose submissions are all approved or rejected."""
    call(client, "DeleteHIT", HITId=hit_id)
