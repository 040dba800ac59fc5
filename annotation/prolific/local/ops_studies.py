"""Study routes of the local endpoint: create, list, read, change, delete, transition, cost.

Publishing reserves rewards + fees + VAT from the balance (a short balance refuses it and the
study stays a draft); adding places to a published study reserves their cost too.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .errors import ApiError, invalid, not_found, refused
from .routing import Call, paginate, route
from .store import Store, dumps, iso, loads
from .validation import check_study

# (from statuses, action) -> to status (reference section 2)
TRANSITIONS = {
    "PUBLISH": (("UNPUBLISHED",), "ACTIVE"),
    "PAUSE": (("ACTIVE",), "PAUSED"),
    "STOP": (("ACTIVE", "PAUSED"), "COMPLETED"),
    "START": (("PAUSED", "AWAITING REVIEW"), "ACTIVE"),
}
PUBLISHED_FIELDS = {"internal_name", "total_available_places", "access_details", "submissions_config"}


def study_json(store: Store, row: sqlite3.Row) -> dict[str, Any]:
    data = loads(row["data"])
    places = int(data["total_available_places"])
    counted = store.one("SELECT COUNT(*) FROM submissions WHERE study_id = ?", (row["id"],))[0]
    return {
        **data,
        "id": row["id"],
        "status": row["status"],
        "internal_name": row["internal_name"],
        "places_taken": store.places_taken(row["id"]),
        "number_of_submissions": counted,
        "is_ready_to_publish": True,
        "total_cost": store.cost(int(data["reward"]) * places).total,
        "currency_code": store.meta("currency"),
        "date_created": iso(row["created"]),
        "published_at": iso(row["published"]),
    }


def existing(store: Store, study_id: str) -> sqlite3.Row:
    row = store.study_row(study_id)
    if row is None:
        raise not_found("Study", study_id)
    return row


@route("POST", "studies/", "create_study")
def create(call: Call) -> tuple[int, Any]:
    if not isinstance(call.body, dict):
        raise invalid(non_field_errors="Expected a JSON object.")
    check_study(call.body)
    data = {"filters": [], "device_compatibility": [], "peripheral_requirements": [], **call.body}
    study_id = call.store.new_id()
    call.store.execute(
        "INSERT INTO studies (id, internal_name, status, data, created) VALUES (?, ?, ?, ?, ?)",
        (study_id, data.get("internal_name"), "UNPUBLISHED", dumps(data), call.store.now()),
    )
    return 201, study_json(call.store, existing(call.store, study_id))


@route("GET", "studies/", "list_studies")
def listing(call: Call) -> tuple[int, Any]:
    state = call.query.get("state")
    rows = call.store.rows("SELECT * FROM studies ORDER BY seq")
    items = [study_json(call.store, r) for r in rows if state in (None, "", r["status"])]
    return 200, paginate(call, items)


@route("GET", "studies/{id}/", "get_study")
def get(call: Call) -> tuple[int, Any]:
    return 200, study_json(call.store, existing(call.store, call.args[0]))


@route("PATCH", "studies/{id}/", "update_study")
def update(call: Call) -> tuple[int, Any]:
    store, row = call.store, existing(call.store, call.args[0])
    if not isinstance(call.body, dict):
        raise invalid(non_field_errors="Expected a JSON object.")
    check_study(call.body, partial=True)
    data = loads(row["data"])
    with store.transaction() as db:
        if row["status"] != "UNPUBLISHED":
            _patch_published(store, row, data, call.body)
        data.update(call.body)
        db.execute(
            "UPDATE studies SET data = ?, internal_name = ? WHERE id = ?",
            (dumps(data), data.get("internal_name"), row["id"]),
        )
    return 200, study_json(store, existing(store, row["id"]))


def _patch_published(store: Store, row: sqlite3.Row, data: dict, changes: dict) -> None:
    locked = sorted(set(changes) - PUBLISHED_FIELDS)
    if locked:
        raise refused(f"A published study cannot change {', '.join(locked)}.")
    added = int(changes.get("total_available_places", data["total_available_places"])) - int(
        data["total_available_places"]
    )
    if added < 0:
        raise invalid(total_available_places="Places can only be increased once published.")
    if added and not store.charge(store.cost(int(data["reward"]) * added).total):
        raise refused("Insufficient funds: top up your workspace balance to add places.")
    if added and row["status"] == "COMPLETED":
        store.execute("UPDATE studies SET status = 'ACTIVE' WHERE id = ?", (row["id"],))


@route("DELETE", "studies/{id}/", "delete_study")
def delete(call: Call) -> tuple[int, Any]:
    row = existing(call.store, call.args[0])
    if row["status"] != "UNPUBLISHED":
        raise refused("Only unpublished (draft) studies can be deleted.")
    call.store.execute("DELETE FROM studies WHERE id = ?", (row["id"],))
    return 200, {}


@route("POST", "studies/{id}/transition/", "study_transition")
def transition(call: Call) -> tuple[int, Any]:
    store, row = call.store, existing(call.store, call.args[0])
    action = call.field("action")
    if action not in TRANSITIONS:
        raise invalid(action=f"Must be one of {', '.join(TRANSITIONS)}.")
    sources, target = TRANSITIONS[action]
    with store.transaction():
        row = existing(store, row["id"])
        if row["status"] not in sources:
            raise refused(f"Cannot {action} a study whose status is {row['status']}.")
        if action == "PUBLISH":
            data = loads(row["data"])
            total = store.cost(int(data["reward"]) * int(data["total_available_places"])).total
            if not store.charge(total):
                raise refused(
                    f"Insufficient funds: publishing needs {total} (minor units) and "
                    f"the workspace has {store.balance()}. Top up your balance."
                )
            store.execute(
                "UPDATE studies SET published = ?, reserved = ? WHERE id = ?", (store.now(), total, row["id"])
            )
        store.execute("UPDATE studies SET status = ? WHERE id = ?", (target, row["id"]))
    return 200, study_json(store, existing(store, row["id"]))


@route("GET", "studies/{id}/cost/", "study_cost")
def study_cost(call: Call) -> tuple[int, Any]:
    store, row = call.store, existing(call.store, call.args[0])
    data = loads(row["data"])
    cost = store.cost(int(data["reward"]) * int(data["total_available_places"]))
    paid = store.one(
        "SELECT COALESCE(SUM(amount * times_paid), 0), COALESCE(SUM(fees * "
        "times_paid), 0), COALESCE(SUM(vat * times_paid), 0) FROM bonuses WHERE "
        "study_id = ?",
        (row["id"],),
    )
    currency = store.meta("currency")
    money = lambda amount: {"amount": int(amount), "currency": currency}  # noqa: E731
    return 200, {
        "rewards": {"rewards": money(cost.rewards), "fees": money(cost.fees), "tax": money(cost.vat)},
        "bonuses": {"rewards": money(paid[0]), "fees": money(paid[1]), "tax": money(paid[2])},
    }


@route("POST", "study-cost-calculator/", "study_cost_calculator")
def calculator(call: Call) -> tuple[int, Any]:
    reward, places = call.field("reward"), call.field("total_available_places")
    errors = {
        name: "Ensure this value is a whole number of at least 0."
        for name, value in (("reward", reward), ("total_available_places", places))
        if not isinstance(value, int) or isinstance(value, bool) or value < 0
    }
    if errors:
        raise invalid(**errors)
    return 200, {"total_cost": call.store.cost(reward * places).total}


@route("GET", "users/me/", "get_me")
def me(call: Call) -> tuple[int, Any]:
    store = call.store
    return 200, {
        "id": store.meta("user_id"),
        "email": "researcher@local.prolific.test",
        "first_name": "Local",
        "last_name": "Researcher",
        "currency_code": store.meta("currency"),
        "balance": store.balance(),
        "available_balance": store.balance(),
    }


@route("GET", "workspaces/", "list_workspaces")
def workspaces(call: Call) -> tuple[int, Any]:
    item = {"id": call.store.meta("workspace_id"), "title": "Local workspace"}
    return 200, paginate(call, [item])


@route("GET", "workspaces/{id}/balance/", "get_balance")
def balance(call: Call) -> tuple[int, Any]:
    store = call.store
    if call.args[0] != store.meta("workspace_id"):
        raise ApiError(404, f"Workspace {call.args[0]} was not found.")
    amount = store.balance()
    breakdown = {"rewards": amount, "fees": 0, "vat": 0}
    return 200, {
        "currency_code": store.meta("currency"),
        "total_balance": amount,
        "balance_breakdown": breakdown,
        "available_balance": amount,
        "available_balance_breakdown": breakdown,
    }
