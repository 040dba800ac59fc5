"""The local model endpoint's admin API (JSON, under /_local/, no authentication: bind to
127.0.0.1): what tests, the bench and the demo steer.

    GET    /_local/state              scripted models, fault settings, request counts
    POST   /_local/models             {"model", "accuracy": p, "seed", "bias": {field: value},
                                       "answers": {item key: {field: true value}}} (answers add up)
    DELETE /_local/models             forget every script and true answer
    POST   /_local/faults             {"rates": {"429"|"500"|"slow"|"malformed"|"refusal": rate},
                                       "seed", "next": [kind, ...], "retry_after", "slow_seconds"}
    GET    /_local/faults   DELETE /_local/faults
    GET    /_local/requests[?model=M] counts: by status and fault, paid, paid twice, tokens
    GET    /_local/requests/rows      the latest 1,000 requests
    DELETE /_local/requests
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotation.local_endpoint import json_object

if TYPE_CHECKING:
    from .server import LocalModel


def handle(app: "LocalModel", method: str, path: str, query: dict[str, str], raw: bytes) -> tuple[int, Any]:
    try:
        found = _route(app, method, path, query, json_object(raw))
    except (ValueError, TypeError, KeyError) as exc:
        return 400, {"error": f"{type(exc).__name__}: {exc}"}
    if found is None:
        return 404, {"error": f"no admin route {method} {path}"}
    return 200, found


def _route(app: "LocalModel", method: str, path: str, query: dict[str, str], data: dict[str, Any]) -> Any:
    store, faults = app.store, app.faults
    key = (method, path)
    if key == ("GET", "/_local/state"):
        return {"models": store.models(), "faults": faults.state(), "requests": store.requests_summary()}
    if key == ("POST", "/_local/models"):
        answers, bias = data.get("answers") or {}, data.get("bias") or {}
        if not isinstance(answers, dict) or not all(isinstance(a, dict) for a in answers.values()):
            raise ValueError("answers is an object of item key -> {field: value}")
        if not isinstance(bias, dict):
            raise ValueError("bias is an object of field -> the value a wrong answer goes to")
        return store.set_script(
            str(data["model"]),
            accuracy=float(data["accuracy"]),
            seed=int(data.get("seed", 0)),
            bias=bias,
            answers=answers,
        )
    if key == ("DELETE", "/_local/models"):
        store.clear_scripts()
        return {"cleared": True}
    if key == ("POST", "/_local/faults"):
        return faults.configure(**data)
    if key == ("GET", "/_local/faults"):
        return faults.state()
    if key == ("DELETE", "/_local/faults"):
        return faults.configure()
    if key == ("GET", "/_local/requests"):
        return store.requests_summary(query.get("model"))
    if key == ("GET", "/_local/requests/rows"):
        return store.request_rows()
    if key == ("DELETE", "/_local/requests"):
        store.clear_requests()
        return {"cleared": True}
    return None
