"""The local endpoint's admin API (JSON, under /_local/): what tests and demos steer.

GET    /_local/state                     balance, clock, counts, active fault rules
POST   /_local/faults                    {"operation", "error", "count", "after_effect",
                                          "delay_seconds", "message", "turk_error_code"}
GET    /_local/faults   DELETE /_local/faults
GET    /_local/requests[?operation=X]    the API calls received (params, status, error)
DELETE /_local/requests
POST   /_local/workers                   {"worker_id", "country", "subdivision",
                                          "qualifications": {type_id: value or null}}
GET    /_local/workers/<worker_id>
POST   /_local/balance                   {"available": "100.00"}
POST   /_local/clock                     {"advance_seconds": 3600}
POST   /_local/auto-approve              {"everything": false}: approve due submissions
POST   /_local/accept                    {"hit_id", "worker_id"} -> {"assignment_id"}
POST   /_local/submit                    {"assignment_id", "fields": {"name": "value"}}
POST   /_local/return                    {"assignment_id"}
GET    /_local/notifications | /_local/bonuses | /_local/blocks
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotation.local_endpoint import faults_route, json_object

from . import work
from .work import WorkerError

if TYPE_CHECKING:
    from .server import LocalMTurk

TABLES = {"/_local/notifications": "notifications", "/_local/bonuses": "bonuses", "/_local/blocks": "blocks"}


def handle(app: "LocalMTurk", method: str, path: str, query: dict[str, str], raw: bytes) -> tuple[int, Any]:
    try:
        return 200, _route(app, method, path, query, json_object(raw))
    except WorkerError as exc:
        return exc.status, {"error": str(exc)}
    except (ValueError, TypeError, KeyError) as exc:
        return 400, {"error": f"{type(exc).__name__}: {exc}"}


def _route(app: "LocalMTurk", method: str, path: str, query: dict[str, str], data: dict[str, Any]) -> Any:
    store, faults = app.store, app.faults
    key = (method, path)
    if key == ("GET", "/_local/state"):
        return {**store.summary(), "faults": faults.rules(), "url": app.public_url}
    found = faults_route(faults, key, query, data)
    if found is not None:
        return found
    if key == ("POST", "/_local/workers"):
        worker_id = work.check_worker_id(data["worker_id"])
        return store.set_worker(
            worker_id,
            country=data.get("country"),
            subdivision=data.get("subdivision"),
            qualifications=data.get("qualifications"),
        )
    if method == "GET" and path.startswith("/_local/workers/"):
        return store.worker(work.check_worker_id(path.rsplit("/", 1)[1]))
    if key == ("POST", "/_local/balance"):
        store.set_balance(data["available"])
        return {"available": str(store.balance())}
    if key == ("POST", "/_local/clock"):
        return {"now": store.advance_clock(float(data["advance_seconds"]))}
    if key == ("POST", "/_local/auto-approve"):
        return {"approved": work.auto_approve(store, everything=bool(data.get("everything")))}
    if key == ("POST", "/_local/accept"):
        return {"assignment_id": work.accept(store, data["hit_id"], data["worker_id"])}
    if key == ("POST", "/_local/submit"):
        fields = [(str(k), str(v)) for k, v in dict(data["fields"]).items()]
        row = work.submit(store, data["assignment_id"], fields)
        return {"assignment_id": row["id"], "status": row["status"]}
    if key == ("POST", "/_local/return"):
        work.return_assignment(store, data["assignment_id"])
        return {"assignment_id": data["assignment_id"], "status": "Returned"}
    if method == "GET" and path in TABLES:
        return [dict(r) for r in store.rows(f"SELECT * FROM {TABLES[path]} ORDER BY rowid")]
    raise WorkerError(f"no admin route {method} {path}", 404)
