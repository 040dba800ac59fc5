"""Fault injection and the request log of the local endpoint (in memory, not persisted).

A rule makes the next ``count`` calls of ``operation`` (a route's name such as
``create_study`` or ``submission_transition``; ``*`` = any) fail:

- ``429``: Too Many Requests with ``Retry-After: <retry_after>`` (nothing happens);
- ``5xx``: HTTP ``status`` (default 500) before anything happens;
- ``lost``: the call takes effect, then the connection is closed without an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.local_endpoint import FaultBook

from .errors import ApiError

KINDS = ("429", "5xx", "lost")


@dataclass
class Fault:
    operation: str
    kind: str = "429"
    count: int = 1
    status: int = 500
    retry_after: int = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}")
        if self.count < 1:
            raise ValueError("count must be at least 1")
        if not 500 <= self.status <= 599:
            raise ValueError("status is a 5xx code")
        if not 0 <= self.retry_after <= 60:
            raise ValueError("retry_after is between 0 and 60 seconds")

    def error(self) -> ApiError:
        if self.kind == "429":
            return ApiError(
                429,
                "Request was throttled (injected by the local endpoint).",
                headers=(("Retry-After", str(self.retry_after)),),
            )
        return ApiError(self.status, "Injected by the local Prolific endpoint.")


class Faults(FaultBook):
    def add(self, operation: str, kind: str = "429", count: int = 1, **options: Any) -> Fault:
        return self.keep(Fault(operation=operation, kind=str(kind), count=int(count), **options))
