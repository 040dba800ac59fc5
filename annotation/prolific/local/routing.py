"""The API's route table and pagination, shared by the ``ops_*`` modules.

A route is ``(method, path pattern under /api/v1/, operation name)``; the operation name is
what fault rules and the request log use. Lists accept both of Prolific's pagination styles
(``page``/``page_size`` and ``limit``/``offset``) and answer
``{"results", "_links": {self, next, previous, last}, "meta": {"count"}}``; a page past the
end is a 404, as Dallinger reports of Prolific.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from .errors import ApiError, invalid
from .store import Store


@dataclass
class Call:
    store: Store
    args: tuple[str, ...]
    query: dict[str, str]
    body: Any
    base_url: str
    path: str

    def field(self, name: str, default: Any = None) -> Any:
        return self.body.get(name, default) if isinstance(self.body, dict) else default


Handler = Callable[[Call], tuple[int, Any]]
ROUTES: list[tuple[str, re.Pattern[str], str, Handler]] = []
ID = "([0-9a-f]{24})"


def route(method: str, pattern: str, operation: str) -> Callable[[Handler], Handler]:
    compiled = re.compile("^/api/v1/" + pattern.replace("{id}", ID) + "$")

    def register(handler: Handler) -> Handler:
        ROUTES.append((method, compiled, operation, handler))
        return handler

    return register


def resolve(method: str, path: str) -> tuple[str, Handler, tuple[str, ...]]:
    allowed = False
    for route_method, pattern, operation, handler in ROUTES:
        match = pattern.match(path)
        if match:
            if route_method == method:
                return operation, handler, match.groups()
            allowed = True
    if allowed:
        raise ApiError(405, f"Method {method} not allowed on {path}.")
    raise ApiError(404, f"No API route {path} (paths end with '/').")


def _int(call: Call, name: str, default: int, lowest: int) -> int:
    raw = call.query.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise invalid(**{name: "A valid integer is required."}) from None
    if value < lowest:
        raise invalid(**{name: f"Ensure this value is greater than or equal to {lowest}."})
    return value


def _link(call: Call, params: dict[str, Any] | None) -> dict[str, Any]:
    if params is None:
        return {"href": None, "title": None}
    query = {k: v for k, v in call.query.items() if k not in ("page", "page_size", "limit", "offset")}
    return {"href": f"{call.base_url}{call.path}?{urlencode({**query, **params})}", "title": None}


def paginate(call: Call, items: list[Any]) -> dict[str, Any]:
    """One page of ``items`` in Prolific's list shape."""
    count = len(items)
    if "limit" in call.query or "offset" in call.query:
        limit, offset = _int(call, "limit", 20, 1), _int(call, "offset", 0, 0)
        nxt = {"limit": limit, "offset": offset + limit} if offset + limit < count else None
        prev = {"limit": limit, "offset": max(0, offset - limit)} if offset else None
        last = {"limit": limit, "offset": max(0, (math.ceil(count / limit) - 1) * limit)}
        this = {"limit": limit, "offset": offset}
        chunk = items[offset : offset + limit]
    else:
        page, size = _int(call, "page", 1, 1), _int(call, "page_size", 20, 1)
        pages = max(1, math.ceil(count / size))
        if page > pages:
            raise ApiError(404, "Invalid page.")
        nxt = {"page": page + 1, "page_size": size} if page < pages else None
        prev = {"page": page - 1, "page_size": size} if page > 1 else None
        last, this = {"page": pages, "page_size": size}, {"page": page, "page_size": size}
        chunk = items[(page - 1) * size : page * size]
    return {
        "results": chunk,
        "meta": {"count": count},
        "_links": {
            "self": _link(call, this),
            "next": _link(call, nxt),
            "previous": _link(call, prev),
            "last": _link(call, last),
        },
    }
