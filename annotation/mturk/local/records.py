"""HITs and assignments as the API shows them: derived status, counts, JSON shapes."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from annotation.mturk.qualifications import uses_masters

from .errors import not_found
from .store import Store

LISTED_STATUSES = ("Submitted", "Approved", "Rejected")

HIT_SQL = """
SELECT h.*, t.title, t.description, t.reward, t.assignment_duration, t.auto_approval_delay,
       t.keywords, t.qualification_requirements
FROM hits h JOIN hit_types t ON t.id = h.hit_type_id
"""


def hit_row(store: Store, hit_id: str) -> sqlite3.Row:
    row = store.row(HIT_SQL + " WHERE h.id = ?", (hit_id,))
    if row is None:
        raise not_found("Hit", hit_id)
    return row


def requirements(hit: sqlite3.Row) -> list[dict[str, Any]]:
    return json.loads(hit["qualification_requirements"])


def is_masters(hit: sqlite3.Row) -> bool:
    return uses_masters(requirements(hit))


def counts(store: Store, hit: sqlite3.Row) -> dict[str, int]:
    rows = store.rows("SELECT status, COUNT(*) FROM assignments WHERE hit_id = ? GROUP BY status", (hit["id"],))
    by_status: dict[str, int] = {status: count for status, count in rows}
    pending = by_status.get("Accepted", 0)
    submitted = by_status.get("Submitted", 0)
    completed = by_status.get("Approved", 0) + by_status.get("Rejected", 0)
    available = max(0, hit["max_assignments"] - pending - submitted - completed)
    return {"pending": pending, "submitted": submitted, "completed": completed, "available": available}


def status(store: Store, hit: sqlite3.Row, tally: dict[str, int] | None = None) -> str:
    tally = tally or counts(store, hit)
    if hit["disposed"]:
        return "Disposed"
    if store.now() < hit["expiration"] and tally["available"] > 0:
        return "Assignable"
    if tally["pending"] > 0:
        return "Unassignable"
    return "Reviewable"


def hit_api(store: Store, hit: sqlite3.Row) -> dict[str, Any]:
    tally = counts(store, hit)
    body = {
        "HITId": hit["id"],
        "HITTypeId": hit["hit_type_id"],
        "HITGroupId": hit["hit_type_id"],
        "CreationTime": hit["created"],
        "Title": hit["title"],
        "Description": hit["description"],
        "Question": hit["question"],
        "HITStatus": status(store, hit, tally),
        "MaxAssignments": hit["max_assignments"],
        "Reward": hit["reward"],
        "AutoApprovalDelayInSeconds": hit["auto_approval_delay"],
        "Expiration": hit["expiration"],
        "AssignmentDurationInSeconds": hit["assignment_duration"],
        "QualificationRequirements": requirements(hit),
        "HITReviewStatus": "NotReviewed",
        "NumberOfAssignmentsPending": tally["pending"],
        "NumberOfAssignmentsAvailable": tally["available"],
        "NumberOfAssignmentsCompleted": tally["completed"],
    }
    if hit["keywords"]:
        body["Keywords"] = hit["keywords"]
    if hit["requester_annotation"]:
        body["RequesterAnnotation"] = hit["requester_annotation"]
    return body


def assignment_row(store: Store, assignment_id: str, *, listed_only: bool = True) -> sqlite3.Row:
    """The assignment; with ``listed_only``, as the requester API sees it (submitted or later)."""
    row = store.row("SELECT * FROM assignments WHERE id = ?", (assignment_id,))
    if row is None or (listed_only and row["status"] not in LISTED_STATUSES):
        raise not_found("Assignment", assignment_id)
    return row


def assignment_api(row: sqlite3.Row) -> dict[str, Any]:
    body = {
        "AssignmentId": row["id"],
        "WorkerId": row["worker_id"],
        "HITId": row["hit_id"],
        "AssignmentStatus": row["status"],
        "AcceptTime": row["accept_time"],
        "Deadline": row["deadline"],
        "Answer": row["answer"] or "",
    }
    for key, column in (
        ("SubmitTime", "submit_time"),
        ("AutoApprovalTime", "auto_approval_time"),
        ("ApprovalTime", "approval_time"),
        ("RejectionTime", "rejection_time"),
        ("RequesterFeedback", "requester_feedback"),
    ):
        if row[column] is not None:
            body[key] = row[column]
    return body
