"""Requester operations on HIT types and HITs (the ``X-Amz-Target`` names)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from annotation.mturk.errors import DUPLICATE_REQUEST, HIT_ALREADY_EXISTS
from annotation.mturk.fees import money
from annotation.mturk.questions import MAX_QUESTION_BYTES, parse_external_question

from . import records
from .access import check_requirements
from .errors import invalid, not_found, request_error
from .store import Store, dumps

Handler = Callable[[Store, dict[str, Any]], dict[str, Any]]
OPERATIONS: dict[str, Handler] = {}
MAX_LIFETIME = 365 * 24 * 3600
DEFAULT_AUTO_APPROVAL = 30 * 24 * 3600


def operation(fn: Handler) -> Handler:
    OPERATIONS[fn.__name__] = fn
    return fn


def _between(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise invalid(f"{name} must be between {low} and {high}, not {value}")
    return value


def register_hit_type(store: Store, p: dict[str, Any]) -> str:
    """The id of the HIT type with exactly these values (created when new)."""
    reqs = p.get("QualificationRequirements") or []
    check_requirements(store, reqs)
    values = {
        "title": p["Title"],
        "description": p["Description"],
        "reward": str(money(p["Reward"])),
        "assignment_duration": _between(
            "AssignmentDurationInSeconds", p["AssignmentDurationInSeconds"], 30, MAX_LIFETIME
        ),
        "auto_approval_delay": _between(
            "AutoApprovalDelayInSeconds",
            p.get("AutoApprovalDelayInSeconds", DEFAULT_AUTO_APPROVAL),
            0,
            DEFAULT_AUTO_APPROVAL,
        ),
        "keywords": p.get("Keywords") or "",
        "qualification_requirements": dumps(reqs),
    }
    if not values["title"].strip() or not values["description"].strip():
        raise invalid("Title and Description cannot be empty")
    signature = dumps(values)
    with store.transaction() as db:
        row = db.execute("SELECT id FROM hit_types WHERE signature = ?", (signature,)).fetchone()
        if row:
            return row["id"]
        type_id = store.new_id()
        db.execute(
            "INSERT INTO hit_types VALUES (:id, :signature, :title, :description, :reward, "
            ":assignment_duration, :auto_approval_delay, :keywords, "
            ":qualification_requirements, :created)",
            {**values, "id": type_id, "signature": signature, "created": store.now()},
        )
        return type_id


def _check_question(store: Store, question: str | None) -> str:
    if not question:
        raise invalid("Question is required (HITLayoutId is not supported by the local endpoint)")
    if len(question.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise invalid(f"Question is longer than {MAX_QUESTION_BYTES} bytes")
    try:
        external = parse_external_question(question)
    except ValueError as exc:
        raise request_error("AWS.MechanicalTurk.XMLParseError", str(exc)) from None
    if external is not None:
        url, _height = external
        schemes = ("https://",) if store.require_https else ("https://", "http://")
        if not url.startswith(schemes):
            raise invalid(f"ExternalURL must start with {' or '.join(schemes)}: {url!r}")
    return question


def create_hit(store: Store, type_id: str, p: dict[str, Any]) -> dict[str, Any]:
    for unsupported in ("HITLayoutId", "AssignmentReviewPolicy", "HITReviewPolicy"):
        if p.get(unsupported):
            raise invalid(f"{unsupported} is not supported by the local endpoint")
    token = p.get("UniqueRequestToken")
    with store.transaction() as db:
        existing = store.token_result("hit", token)
        if existing:
            raise request_error(
                HIT_ALREADY_EXISTS,
                f"There is already a HIT which exists with the same UniqueRequestToken. HIT id: {existing}",
            )
        question = _check_question(store, p.get("Question"))
        lifetime = _between("LifetimeInSeconds", p["LifetimeInSeconds"], 30, MAX_LIFETIME)
        max_assignments = _between("MaxAssignments", p.get("MaxAssignments", 1), 1, 1_000_000)
        annotation = p.get("RequesterAnnotation") or ""
        if len(annotation) > 255:
            raise invalid("RequesterAnnotation is longer than 255 characters")
        hit_id, now = store.new_id(), store.now()
        db.execute(
            "INSERT INTO hits VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
            (hit_id, type_id, question, now, now + lifetime, max_assignments, annotation),
        )
        store.remember_token("hit", token, hit_id)
        return {"HIT": records.hit_api(store, records.hit_row(store, hit_id))}


@operation
def CreateHITType(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    return {"HITTypeId": register_hit_type(store, p)}


@operation
def CreateHITWithHITType(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    if store.row("SELECT 1 FROM hit_types WHERE id = ?", (p["HITTypeId"],)) is None:
        raise not_found("HITType", p["HITTypeId"])
    return create_hit(store, p["HITTypeId"], p)


@operation
def CreateHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    with store.transaction():
        return create_hit(store, register_hit_type(store, p), p)


@operation
def GetHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    return {"HIT": records.hit_api(store, records.hit_row(store, p["HITId"]))}


@operation
def ListHITs(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    rows = store.rows(records.HIT_SQL + " ORDER BY h.created, h.id")
    page, token = paginate(rows, p, "ListHITs")
    return {"HITs": [records.hit_api(store, r) for r in page], "NumResults": len(page), **token}


@operation
def UpdateExpirationForHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    with store.transaction() as db:
        hit = records.hit_row(store, p["HITId"])
        if hit["disposed"]:
            raise _state_error(hit["id"], "Disposed", "Assignable, Unassignable, Reviewable")
        db.execute("UPDATE hits SET expiration = ? WHERE id = ?", (max(float(p["ExpireAt"]), store.now()), hit["id"]))
    return {}


@operation
def CreateAdditionalAssignmentsForHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    token, number = p.get("UniqueRequestToken"), p["NumberOfAdditionalAssignments"]
    with store.transaction() as db:
        if token and store.token_result("extend", token):
            raise duplicate_token(token)
        hit = records.hit_row(store, p["HITId"])
        if hit["disposed"]:
            raise _state_error(hit["id"], "Disposed", "Assignable, Unassignable, Reviewable")
        _between("NumberOfAdditionalAssignments", number, 1, 1_000_000)
        before = hit["max_assignments"]
        if before < 10 <= before + number:
            raise request_error(
                "AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease",
                f"This HIT was created with {before} assignments; a HIT created with fewer "
                f"than 10 assignments cannot be extended to 10 or more.",
            )
        db.execute("UPDATE hits SET max_assignments = ? WHERE id = ?", (before + number, hit["id"]))
        store.remember_token("extend", token, hit["id"])
    return {}


@operation
def DeleteHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    with store.transaction() as db:
        hit = records.hit_row(store, p["HITId"])
        current = records.status(store, hit)
        tally = records.counts(store, hit)
        if current != "Reviewable" or tally["submitted"]:
            raise _state_error(hit["id"], current, "Reviewable (all assignments approved or rejected)")
        db.execute("UPDATE hits SET disposed = 1 WHERE id = ?", (hit["id"],))
    return {}


def _state_error(hit_id: str, current: str, allowed: str):
    return request_error(
        "AWS.MechanicalTurk.InvalidHITState",
        f"This HIT ({hit_id}) is currently in the state '{current}'. "
        f"This operation can be called with a status of: {allowed}",
    )


def duplicate_token(token: str):
    return request_error(DUPLICATE_REQUEST, f'The idempotency token "{token}" has already been processed.')


def paginate(rows: list, p: dict[str, Any], scope: str, default: int = 10) -> tuple[list, dict]:
    """One page of ``rows`` (MaxResults, NextToken) and the NextToken of the next, if any."""
    offset = 0
    if p.get("NextToken"):
        try:
            data = json.loads(base64.urlsafe_b64decode(p["NextToken"].encode()))
            assert data["s"] == scope
            offset = int(data["o"])
        except Exception:
            raise request_error(
                "AWS.MechanicalTurk.InvalidNextToken", "The NextToken is not valid for this request."
            ) from None
    size = p.get("MaxResults") or default
    page = rows[offset : offset + size]
    if offset + size >= len(rows):
        return page, {}
    token = base64.urlsafe_b64encode(dumps({"s": scope, "o": offset + size}).encode()).decode()
    return page, {"NextToken": token}
