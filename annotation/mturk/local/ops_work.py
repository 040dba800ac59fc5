"""Requester operations on assignments, payments, workers, qualifications and the balance."""

from __future__ import annotations

from typing import Any

from annotation.mturk.errors import INVALID_ASSIGNMENT_STATE
from annotation.mturk.fees import assignment_cost, bonus_cost, bonus_fee, money
from annotation.mturk.qualification_tests import read_question_form
from annotation.mturk.qualifications import SYSTEM_QUALIFICATIONS

from . import records
from .errors import invalid, not_found, request_error
from .ops_hits import duplicate_token, operation, paginate
from .store import Store

OVERRIDE_WINDOW = 30 * 24 * 3600


@operation
def ListAssignmentsForHIT(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    hit = records.hit_row(store, p["HITId"])
    statuses = p.get("AssignmentStatuses") or list(records.LISTED_STATUSES)
    marks = ",".join("?" * len(statuses))
    rows = store.rows(
        f"SELECT * FROM assignments WHERE hit_id = ? AND status IN ({marks}) ORDER BY seq", (hit["id"], *statuses)
    )
    page, token = paginate(rows, p, f"assignments:{hit['id']}")
    return {"Assignments": [records.assignment_api(r) for r in page], "NumResults": len(page), **token}


@operation
def GetAssignment(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    row = records.assignment_row(store, p["AssignmentId"])
    return {
        "Assignment": records.assignment_api(row),
        "HIT": records.hit_api(store, records.hit_row(store, row["hit_id"])),
    }


def _wrong_state(row, allowed: str):
    return request_error(
        INVALID_ASSIGNMENT_STATE,
        f"This operation can be called with a status of: {allowed} (assignment {row['id']} is {row['status']})",
    )


def approve(store: Store, assignment_id: str, *, feedback: str | None = None, override_rejection: bool = False) -> None:
    """Approve and pay reward + fee (ApproveAssignment, and the simulated auto-approval)."""
    with store.transaction() as db:
        row = records.assignment_row(store, assignment_id)
        if row["status"] == "Rejected" and override_rejection:
            if row["submit_time"] < store.now() - OVERRIDE_WINDOW:
                raise _wrong_state(row, "Submitted (or Rejected within 30 days of submission)")
        elif row["status"] != "Submitted":
            raise _wrong_state(row, "Submitted")
        hit = records.hit_row(store, row["hit_id"])
        store.charge(
            assignment_cost(hit["reward"], max_assignments=hit["max_assignments"], masters=records.is_masters(hit))
        )
        db.execute(
            "UPDATE assignments SET status = 'Approved', approval_time = ?, "
            "rejection_time = NULL, requester_feedback = COALESCE(?, requester_feedback) "
            "WHERE id = ?",
            (store.now(), feedback, row["id"]),
        )


@operation
def ApproveAssignment(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    if len(p.get("RequesterFeedback") or "") > 1024:
        raise invalid("RequesterFeedback is longer than 1024 characters")
    approve(
        store,
        p["AssignmentId"],
        feedback=p.get("RequesterFeedback"),
        override_rejection=bool(p.get("OverrideRejection")),
    )
    return {}


@operation
def RejectAssignment(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    feedback = p["RequesterFeedback"]
    if not feedback.strip() or len(feedback) > 1024:
        raise invalid("RequesterFeedback is required (1 to 1024 characters) to reject")
    with store.transaction() as db:
        row = records.assignment_row(store, p["AssignmentId"])
        if row["status"] != "Submitted":
            raise _wrong_state(row, "Submitted")
        db.execute(
            "UPDATE assignments SET status = 'Rejected', rejection_time = ?, requester_feedback = ? WHERE id = ?",
            (store.now(), feedback, row["id"]),
        )
    return {}


@operation
def SendBonus(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    token = p.get("UniqueRequestToken")
    amount = money(p["BonusAmount"])
    with store.transaction() as db:
        if token and store.token_result("bonus", token):
            raise duplicate_token(token)
        row = records.assignment_row(store, p["AssignmentId"])
        if row["worker_id"] != p["WorkerId"]:
            raise invalid(f"Assignment {row['id']} was not done by worker {p['WorkerId']}")
        if amount <= 0 or not p["Reason"].strip():
            raise invalid("A bonus needs an amount above 0.00 and a Reason")
        store.charge(bonus_cost(amount))
        db.execute(
            "INSERT INTO bonuses (worker_id, assignment_id, amount, fee, reason, grant_time) VALUES (?, ?, ?, ?, ?, ?)",
            (p["WorkerId"], row["id"], str(amount), str(bonus_fee(amount)), p["Reason"], store.now()),
        )
        store.remember_token("bonus", token, row["id"])
    return {}


@operation
def NotifyWorkers(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    ids, subject, text = p["WorkerIds"], p["Subject"], p["MessageText"]
    if not 1 <= len(ids) <= 100:
        raise invalid(f"WorkerIds takes 1 to 100 ids per call, not {len(ids)}")
    if not 1 <= len(subject) <= 200 or not 1 <= len(text) <= 4096:
        raise invalid("Subject is 1 to 200 characters and MessageText 1 to 4096")
    failures = []
    with store.transaction() as db:
        for worker_id in ids:
            if store.row("SELECT 1 FROM assignments WHERE worker_id = ? LIMIT 1", (worker_id,)):
                db.execute(
                    "INSERT INTO notifications (worker_id, subject, message, sent) VALUES (?, ?, ?, ?)",
                    (worker_id, subject, text, store.now()),
                )
            else:
                failures.append(
                    {
                        "NotifyWorkersFailureCode": "HardFailure",
                        "WorkerId": worker_id,
                        "NotifyWorkersFailureMessage": f"Cannot notify worker {worker_id}: the worker has not "
                        "worked for this requester.",
                    }
                )
    return {"NotifyWorkersFailureStatuses": failures}


@operation
def CreateWorkerBlock(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    if not p["Reason"].strip():
        raise invalid("Reason is required to block a worker")
    store.ensure_worker(p["WorkerId"])
    store.execute("INSERT OR REPLACE INTO blocks VALUES (?, ?, ?)", (p["WorkerId"], p["Reason"], store.now()))
    return {}


@operation
def DeleteWorkerBlock(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    store.execute("DELETE FROM blocks WHERE worker_id = ?", (p["WorkerId"],))
    return {}


def _qualification_api(row) -> dict[str, Any]:
    found = {
        "QualificationTypeId": row["id"],
        "CreationTime": row["created"],
        "Name": row["name"],
        "Description": row["description"],
        "Keywords": row["keywords"],
        "QualificationTypeStatus": row["status"],
        "IsRequestable": bool(row["test"]),
        "AutoGranted": bool(row["auto_granted"]),
    }
    if row["test"]:
        found.update(Test=row["test"], AnswerKey=row["answer_key"], TestDurationInSeconds=row["test_duration"])
        if row["retry_delay"] is not None:
            found["RetryDelayInSeconds"] = row["retry_delay"]
    return found


@operation
def CreateQualificationType(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    test, answer_key = p.get("Test") or "", p.get("AnswerKey") or ""
    if test:
        if p.get("AutoGranted"):
            raise invalid("AutoGranted cannot be true for a qualification type with a Test")
        if not answer_key:
            raise invalid("the local endpoint scores tests only with an AnswerKey")
        if not p.get("TestDurationInSeconds"):
            raise invalid("TestDurationInSeconds is required with a Test")
        try:
            read_question_form(test)
        except ValueError as exc:
            raise invalid(f"Test: {exc}") from None
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM qualification_types WHERE name = ?", (p["Name"],)).fetchone():
            raise request_error(
                "AWS.MechanicalTurk.QualificationTypeAlreadyExists",
                "You have already created a QualificationType with this name. A QualificationType's"
                " name must be unique among all of the QualificationTypes created by the same user.",
            )
        type_id = store.new_id()
        db.execute(
            "INSERT INTO qualification_types (id, name, description, keywords, status, auto_granted, created, "
            "test, answer_key, test_duration, retry_delay) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                type_id,
                p["Name"],
                p["Description"],
                p.get("Keywords") or "",
                p["QualificationTypeStatus"],
                int(bool(p.get("AutoGranted"))),
                store.now(),
                test,
                answer_key,
                p.get("TestDurationInSeconds"),
                p.get("RetryDelayInSeconds"),
            ),
        )
        row = db.execute("SELECT * FROM qualification_types WHERE id = ?", (type_id,)).fetchone()
    return {"QualificationType": _qualification_api(row)}


@operation
def GetQualificationType(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    row = store.row("SELECT * FROM qualification_types WHERE id = ?", (p["QualificationTypeId"],))
    if row is None:
        raise not_found("QualificationType", p["QualificationTypeId"])
    return {"QualificationType": _qualification_api(row)}


@operation
def ListQualificationTypes(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    query = f"%{p.get('Query') or ''}%"
    rows = store.rows(
        "SELECT * FROM qualification_types WHERE name LIKE ? OR description LIKE ? "
        "OR keywords LIKE ? ORDER BY created, id",
        (query, query, query),
    )
    if p.get("MustBeRequestable"):
        rows = []  # the local endpoint's types are never requestable (no qualification tests)
    page, token = paginate(rows, p, "qualification_types")
    return {"QualificationTypes": [_qualification_api(r) for r in page], "NumResults": len(page), **token}


@operation
def AssociateQualificationWithWorker(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    type_id = p["QualificationTypeId"]
    if type_id in SYSTEM_QUALIFICATIONS:
        raise invalid(f"System qualification {type_id} cannot be assigned by a requester")
    if store.row("SELECT 1 FROM qualification_types WHERE id = ?", (type_id,)) is None:
        raise not_found("QualificationType", type_id)
    store.grant(p["WorkerId"], type_id, p.get("IntegerValue", 1))
    return {}


@operation
def GetAccountBalance(store: Store, p: dict[str, Any]) -> dict[str, Any]:
    return {"AvailableBalance": f"{store.balance():.2f}", "OnHoldBalance": "0.00"}
