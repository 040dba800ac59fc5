"""Fault injection and the request log of the local endpoint (in memory, not persisted).

A rule makes the next ``count`` calls of ``operation`` (``*`` = any) fail with ``error``:
``ThrottlingException`` (HTTP 400), ``ServiceFault`` (HTTP 500) or ``RequestError`` (HTTP 400,
with ``turk_error_code``), or, when empty, not at all (only the delay). ``after_effect``
performs the operation first and then fails, like a response lost on the way back;
``delay_seconds`` waits before answering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.local_endpoint import FaultBook

from .errors import KINDS, ApiError


@dataclass
class Fault:
    operation: str
    error: str = "ThrottlingException"
    count: int = 1
    message: str = "Injected by the local MTurk endpoint"
    turk_error_code: str = ""
    after_effect: bool = False
    delay_seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.error and self.error not in KINDS:
            raise ValueError(f"error must be one of {KINDS} (or empty: only a delay)")
        if self.count < 1:
            raise ValueError("count must be at least 1")
        if not 0 <= self.delay_seconds <= 60:
            raise ValueError("delay_seconds is between 0 and 60")

    def api_error(self) -> ApiError | None:
        if not self.error:
            return None
        code = self.turk_error_code or ("AWS.MechanicalTurk.InjectedFault" if self.error == "RequestError" else "")
        return ApiError(self.error, self.message, code)


class Faults(FaultBook):
    def add(self, operation: str, error: str = "ThrottlingException", count: int = 1, **options: Any) -> Fault:
        return self.keep(Fault(operation=operation, error=error, count=int(count), **options))
