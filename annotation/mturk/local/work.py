"""What workers do on the local endpoint: find, accept, return and submit HITs; and the
auto-approval MTurk performs after the delay (here only when asked, see ``auto_approve``)."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from annotation.mturk.questions import answer_xml

from . import records
from .access import allowed
from .errors import ApiError
from .ops_work import approve
from .store import Store

WORKER_ID = re.compile(r"^A[A-Z0-9]{1,63}$")
NOT_AVAILABLE = "ASSIGNMENT_ID_NOT_AVAILABLE"


class WorkerError(Exception):
    """A worker action MTurk would refuse; ``status`` is the HTTP status the site answers."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


def check_worker_id(worker_id: str) -> str:
    if not WORKER_ID.match(worker_id or ""):
        raise WorkerError("A worker id is 'A' followed by 1 to 63 capital letters or digits.", 400)
    return worker_id


def hit_for_worker(store: Store, hit_id: str, worker_id: str) -> tuple[sqlite3.Row, dict[str, bool]]:
    try:
        hit = records.hit_row(store, hit_id)
    except ApiError:
        raise WorkerError(f"There is no HIT {hit_id}.", 404) from None
    return hit, allowed(records.requirements(hit), store.worker(worker_id))


def open_hits(store: Store, worker_id: str) -> list[dict[str, Any]]:
    """The Assignable HITs the worker may discover, newest first, with what they may do."""
    store.sweep()
    profile = store.worker(worker_id)
    found = []
    for hit in store.rows(
        records.HIT_SQL + " WHERE h.disposed = 0 AND h.expiration > ? ORDER BY h.created DESC", (store.now(),)
    ):
        tally = records.counts(store, hit)
        rights = allowed(records.requirements(hit), profile)
        if tally["available"] > 0 and rights["discover"] and not _taken_by(store, hit["id"], worker_id):
            found.append({"hit": hit, "available": tally["available"], **rights})
    return found


def _taken_by(store: Store, hit_id: str, worker_id: str) -> bool:
    """Whether the worker holds or has done an assignment of the HIT (MTurk lists it no more)."""
    return bool(
        store.rows(
            "SELECT 1 FROM assignments WHERE hit_id = ? AND worker_id = ? AND status NOT IN ('Returned', 'Abandoned')",
            (hit_id, worker_id),
        )
    )


def worker_assignments(store: Store, worker_id: str) -> list[sqlite3.Row]:
    store.sweep()
    return store.rows(
        "SELECT a.*, t.title, t.reward FROM assignments a JOIN hits h ON h.id = a.hit_id "
        "JOIN hit_types t ON t.id = h.hit_type_id WHERE a.worker_id = ? "
        "ORDER BY a.seq DESC",
        (worker_id,),
    )


def accept(store: Store, hit_id: str, worker_id: str) -> str:
    """Accept the HIT for the worker; the new assignment's id."""
    check_worker_id(worker_id)
    with store.transaction() as db:
        store.sweep()
        hit, rights = hit_for_worker(store, hit_id, worker_id)
        if store.worker(worker_id)["blocked"] is not None:
            raise WorkerError("This requester has blocked you from working on their HITs.", 403)
        if not rights["accept"]:
            raise WorkerError("You do not meet the qualification requirements of this HIT.", 403)
        if hit["disposed"] or hit["expiration"] <= store.now():
            raise WorkerError("This HIT has expired.", 410)
        if records.counts(store, hit)["available"] < 1:
            raise WorkerError("There are no more assignments available for this HIT.")
        if db.execute(
            "SELECT 1 FROM assignments WHERE hit_id = ? AND worker_id = ? AND status NOT IN ('Returned', 'Abandoned')",
            (hit_id, worker_id),
        ).fetchone():
            raise WorkerError("You have already accepted this HIT.")
        assignment_id, now = store.new_id(), store.now()
        db.execute(
            "INSERT INTO assignments (id, hit_id, worker_id, status, accept_time, deadline) "
            "VALUES (?, ?, ?, 'Accepted', ?, ?)",
            (assignment_id, hit_id, worker_id, now, now + hit["assignment_duration"]),
        )
        return assignment_id


def in_progress(store: Store, assignment_id: str, worker_id: str | None) -> sqlite3.Row:
    """The worker's Accepted assignment (any worker's when ``worker_id`` is None)."""
    store.sweep()
    row = store.row("SELECT * FROM assignments WHERE id = ?", (assignment_id,))
    if row is None or assignment_id == NOT_AVAILABLE:
        raise WorkerError(f"There is no assignment {assignment_id!r}.", 404)
    if worker_id is not None and row["worker_id"] != worker_id:
        raise WorkerError("This assignment belongs to another worker.", 403)
    if row["status"] != "Accepted":
        raise WorkerError(f"This assignment is {row['status']}; it cannot be worked on.")
    return row


def submit(
    store: Store, assignment_id: str, fields: list[tuple[str, str]], worker_id: str | None = None
) -> sqlite3.Row:
    """Record the posted fields (all but assignmentId) as the answer; the assignment is Submitted."""
    answers = [(k, v) for k, v in fields if k != "assignmentId"]
    if not answers:
        raise WorkerError("A submission needs at least one field besides assignmentId.", 400)
    with store.transaction() as db:
        row = in_progress(store, assignment_id, worker_id)
        hit = records.hit_row(store, row["hit_id"])
        now = store.now()
        db.execute(
            "UPDATE assignments SET status = 'Submitted', submit_time = ?, "
            "auto_approval_time = ?, answer = ? WHERE id = ?",
            (now, now + hit["auto_approval_delay"], answer_xml(answers), assignment_id),
        )
        return db.execute("SELECT * FROM assignments WHERE id = ?", (assignment_id,)).fetchone()


def return_assignment(store: Store, assignment_id: str, worker_id: str | None = None) -> None:
    with store.transaction() as db:
        in_progress(store, assignment_id, worker_id)
        db.execute("UPDATE assignments SET status = 'Returned' WHERE id = ?", (assignment_id,))


def auto_approve(store: Store, *, everything: bool = False) -> list[str]:
    """Approve Submitted assignments whose AutoApprovalTime has passed (all with
    ``everything``), paying reward + fee as MTurk does; those the balance cannot cover stay."""
    approved = []
    for row in store.rows("SELECT id, auto_approval_time FROM assignments WHERE status = 'Submitted' ORDER BY seq"):
        if everything or row["auto_approval_time"] <= store.now():
            try:
                approve(store, row["id"])
            except ApiError:
                continue
            approved.append(row["id"])
    return approved
