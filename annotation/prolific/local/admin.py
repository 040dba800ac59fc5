"""The local endpoint's admin API (JSON, under /_local/, no authentication: bind to
127.0.0.1): what tests and demos steer.

    GET    /_local/state                  balance, counts, fault rules, completion URL
    POST   /_local/faults                 {"operation", "kind": "429"|"5xx"|"lost", "count",
                                           "status", "retry_after"}
    GET    /_local/faults    DELETE /_local/faults
    GET    /_local/requests[?operation=X] the API calls received (operation, path, status)
    DELETE /_local/requests
    POST   /_local/balance                {"balance": minor units}
    POST   /_local/start                  {"study_id", "participant_id"} -> submission + url
    POST   /_local/complete               {"submission_id", "code"}
    POST   /_local/return                 {"submission_id"}   (RETURNED)
    POST   /_local/time-out               {"submission_id"}   (TIMED-OUT)
    GET    /_local/bonuses                bulk bonuses with how often each was paid
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotation.local_endpoint import faults_route, json_object

from . import participants
from .errors import ApiError
from .ops_submissions import detail_json
from .store import loads

if TYPE_CHECKING:
    from .server import LocalProlific


def handle(app: "LocalProlific", method: str, path: str, query: dict[str, str], raw: bytes) -> tuple[int, Any]:
    try:
        return 200, _route(app, method, path, query, json_object(raw))
    except ApiError as exc:
        return exc.status, exc.body()
    except (ValueError, TypeError, KeyError) as exc:
        return 400, {"error": f"{type(exc).__name__}: {exc}"}


def _submission_call(app: "LocalProlific", path: str, data: dict[str, Any]) -> Any:
    store, submission_id = app.store, str(data["submission_id"])
    if path == "/_local/complete":
        return detail_json(participants.complete(store, submission_id, str(data["code"])))
    status = "RETURNED" if path == "/_local/return" else "TIMED-OUT"
    return detail_json(participants.leave(store, submission_id, status))


def _route(app: "LocalProlific", method: str, path: str, query: dict[str, str], data: dict[str, Any]) -> Any:
    store, faults = app.store, app.faults
    key = (method, path)
    if key == ("GET", "/_local/state"):
        return {
            **store.summary(),
            "faults": faults.rules(),
            "url": app.public_url,
            "completion_url": app.completion_url,
        }
    found = faults_route(faults, key, query, data)
    if found is not None:
        return found
    if key == ("POST", "/_local/balance"):
        store.set_meta("balance", int(data["balance"]))
        return {"balance": store.balance()}
    if key == ("POST", "/_local/start"):
        row, url = participants.start(store, str(data["study_id"]), str(data["participant_id"]))
        return {**detail_json(row), "url": url}
    if method == "POST" and path in ("/_local/complete", "/_local/return", "/_local/time-out"):
        return _submission_call(app, path, data)
    if key == ("GET", "/_local/bonuses"):
        return [{**dict(r), "rows": loads(r["rows"])} for r in store.rows("SELECT * FROM bonuses ORDER BY seq")]
    raise ApiError(404, f"No admin route {method} {path}.")
