"""Submission and bonus routes of the local endpoint.

The submission transition is idempotent, as Prolific documents: repeating an APPROVE or REJECT
that already took effect answers the submission unchanged. Bonus ``pay`` is deliberately NOT
idempotent (each call pays again), so the client's own guard is what prevents double pay.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal, InvalidOperation
from typing import Any

from annotation.prolific.submissions import MIN_REJECTION_MESSAGE, REJECTION_CATEGORIES

from .errors import ApiError, invalid, not_found, refused
from .ops_studies import existing
from .routing import Call, paginate, route
from .store import Store, dumps, iso, loads

DONE = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}


def short_json(row: sqlite3.Row) -> dict[str, Any]:
    """SubmissionShort, as lists answer it."""
    return {
        "id": row["id"],
        "participant_id": row["participant_id"],
        "status": row["status"],
        "started_at": iso(row["started"]),
        "completed_at": iso(row["completed"]),
        "has_siblings": False,
        "study_code": row["code"],
        "return_requested": bool(row["return_requested"]),
    }


def detail_json(row: sqlite3.Row) -> dict[str, Any]:
    """SubmissionDetail, as the detail and transition answers give it."""
    return {
        "id": row["id"],
        "study_id": row["study_id"],
        "participant": row["participant_id"],
        "status": row["status"],
        "started_at": iso(row["started"]),
        "completed_at": iso(row["completed"]),
        "entered_code": row["code"],
        "return_requested": bool(row["return_requested"]),
        "bonus_payments": [],
    }


def _status_filter(value: str | None) -> str | None:
    return value.upper().replace("_", " ") if value else None


@route("GET", "submissions/", "list_submissions")
def listing(call: Call) -> tuple[int, Any]:
    study_id, status = call.query.get("study"), _status_filter(call.query.get("status"))
    rows = call.store.rows("SELECT * FROM submissions ORDER BY seq")
    items = [short_json(r) for r in rows if study_id in (None, "", r["study_id"]) and status in (None, r["status"])]
    return 200, paginate(call, items)


@route("GET", "studies/{id}/submissions/", "list_study_submissions")
def study_listing(call: Call) -> tuple[int, Any]:
    existing(call.store, call.args[0])
    rows = call.store.rows("SELECT * FROM submissions WHERE study_id = ? ORDER BY seq", (call.args[0],))
    return 200, paginate(call, [short_json(r) for r in rows])


def submission(store: Store, submission_id: str) -> sqlite3.Row:
    row = store.submission_row(submission_id)
    if row is None:
        raise not_found("Submission", submission_id)
    return row


@route("GET", "submissions/{id}/", "get_submission")
def get(call: Call) -> tuple[int, Any]:
    return 200, detail_json(submission(call.store, call.args[0]))


@route("POST", "submissions/{id}/transition/", "submission_transition")
def transition(call: Call) -> tuple[int, Any]:
    store, action = call.store, call.field("action")
    with store.transaction():
        row = submission(store, call.args[0])
        if action in DONE and row["status"] == DONE[action]:
            return 200, detail_json(row)  # a repeated identical request is ignored
        if action == "APPROVE":
            _approve(store, row)
        elif action == "REJECT":
            _reject(store, row, call.field("rejection_category"), call.field("message") or "")
        else:
            raise invalid(action="The local endpoint supports APPROVE and REJECT.")
        return 200, detail_json(submission(store, row["id"]))


def _awaiting(row: sqlite3.Row, action: str) -> None:
    if row["status"] != "AWAITING REVIEW":
        raise refused(
            f"Cannot {action} submission {row['id']}: its status is {row['status']}, "
            "and only submissions AWAITING REVIEW can be reviewed."
        )


def _approve(store: Store, row: sqlite3.Row) -> None:
    _awaiting(row, "APPROVE")
    store.execute("UPDATE submissions SET status = 'APPROVED' WHERE id = ?", (row["id"],))


def _reject(store: Store, row: sqlite3.Row, category: Any, message: str) -> None:
    errors = {}
    if category not in REJECTION_CATEGORIES:
        errors["rejection_category"] = f"Must be one of {', '.join(sorted(REJECTION_CATEGORIES))}."
    if len(message.strip()) < MIN_REJECTION_MESSAGE:
        errors["message"] = f"Ensure this field has at least {MIN_REJECTION_MESSAGE} characters."
    if errors:
        raise invalid(**errors)
    _awaiting(row, "REJECT")
    store.execute(
        "UPDATE submissions SET status = 'REJECTED', rejection_category = ?, message = ? WHERE id = ?",
        (category, message, row["id"]),
    )


@route("POST", "submissions/bulk-approve/", "bulk_approve")
def bulk_approve(call: Call) -> tuple[int, Any]:
    ids = call.field("submission_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 1000:
        raise invalid(submission_ids="Give 1 to 1000 submission ids.")
    with call.store.transaction() as db:
        for submission_id in ids:  # on Prolific this runs later; others are skipped
            db.execute(
                "UPDATE submissions SET status = 'APPROVED' WHERE id = ? AND status = 'AWAITING REVIEW'",
                (str(submission_id),),
            )
    return 200, "The request to bulk approve has been queued successfully."


@route("POST", "submissions/{id}/request-return/", "request_return")
def request_return(call: Call) -> tuple[int, Any]:
    reasons = call.field("request_return_reasons")
    if not isinstance(reasons, list) or not reasons:
        raise invalid(request_return_reasons="Give at least one reason.")
    row = submission(call.store, call.args[0])
    if row["status"] not in ("ACTIVE", "AWAITING REVIEW"):
        raise refused(
            f"Cannot request a return of submission {row['id']}: its status is {row['status']}, and only "
            "submissions ACTIVE or AWAITING REVIEW can be returned."
        )
    call.store.execute("UPDATE submissions SET return_requested = 1 WHERE id = ?", (row["id"],))
    row = submission(call.store, row["id"])
    return 200, {
        "id": row["id"],
        "status": row["status"],
        "participant": row["participant_id"],
        "return_requested": True,
    }


def _bonus_rows(store: Store, study_id: str, csv: Any) -> list[tuple[str, int]]:
    if not isinstance(csv, str) or not csv.strip():
        raise invalid(csv_bonuses="Give one 'id,amount' line per bonus.")
    rows, unknown = [], []
    for line in csv.strip().splitlines():
        ident, _, amount = line.partition(",")
        try:
            minor = int((Decimal(amount.strip()) * 100).to_integral_exact())
        except (InvalidOperation, ArithmeticError):
            raise invalid(csv_bonuses=f"Bad amount in line {line!r} (pounds, e.g. 1.50).") from None
        known = store.row(
            "SELECT 1 FROM submissions WHERE study_id = ? AND (id = ? OR participant_id = ?)",
            (study_id, ident.strip(), ident.strip()),
        )
        if known is None:
            unknown.append(ident.strip())
        rows.append((ident.strip(), minor))
    if unknown:
        raise invalid(csv_bonuses=f"Not participants of this study: {', '.join(unknown)}.")
    if len(rows) > 200:
        raise invalid(csv_bonuses="At most 200 bonuses per call.")
    return rows


@route("POST", "submissions/bonus-payments/", "set_up_bonuses")
def set_up_bonuses(call: Call) -> tuple[int, Any]:
    store, study_id = call.store, str(call.field("study_id") or "")
    existing(store, study_id)
    rows = _bonus_rows(store, study_id, call.field("csv_bonuses"))
    cost = store.cost(sum(minor for _, minor in rows))
    bonus_id = store.new_id()
    store.execute(
        "INSERT INTO bonuses (id, study_id, rows, amount, fees, vat, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (bonus_id, study_id, dumps(rows), cost.rewards, cost.fees, cost.vat, store.now()),
    )
    return 201, {
        "id": bonus_id,
        "study": study_id,
        "amount": float(cost.rewards),
        "fees": float(cost.fees),
        "vat": float(cost.vat),
        "total_amount": float(cost.total),
    }


@route("POST", "bulk-bonus-payments/{id}/pay/", "pay_bonuses")
def pay_bonuses(call: Call) -> tuple[int, Any]:
    store = call.store
    row = store.row("SELECT * FROM bonuses WHERE id = ?", (call.args[0],))
    if row is None:
        raise not_found("Bulk bonus payment", call.args[0])
    total = row["amount"] + row["fees"] + row["vat"]
    with store.transaction():
        if not store.charge(total):
            raise ApiError(
                400,
                f"Insufficient funds: the bonus needs {total} and the workspace "
                f"has {store.balance()}. Top up your balance.",
                title="Insufficient funds",
            )
        store.execute("UPDATE bonuses SET times_paid = times_paid + 1 WHERE id = ?", (row["id"],))
    return 202, {"id": row["id"], "rows": loads(row["rows"])}
