"""Fault injection and the request log of the local endpoint (in memory, not persisted).

A rule makes the next ``count`` calls of ``operation`` (``*`` = any) fail with ``error``:
``ThrottlingException`` (HTTP 400), ``ServiceFault`` (HTTP 500) or ``RequestError`` (HTTP 400,
with ``turk_error_code``), or, when empty, not at all (only the delay). ``after_effect``
performs the operation first and then fails, like a response lost on the way back;
``delay_seconds`` waits before answering.
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

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
        code = self.turk_error_code or ("AWS.MechanicalTurk.InjectedFault"
                                        if self.error == "RequestError" else "")
        return ApiError(self.error, self.message, code)


class Faults:
    def __init__(self, log_size: int = 10000) -> None:
        self._lock = threading.Lock()
        self._rules: list[Fault] = []
        self._log: deque[dict[str, Any]] = deque(maxlen=log_size)

    def add(self, operation: str, error: str = "ThrottlingException", count: int = 1,
            **options: Any) -> Fault:
        rule = Fault(operation=operation, error=error, count=int(count), **options)
        with self._lock:
            self._rules.append(rule)
        return rule

    def take(self, operation: str) -> Fault | None:
        """The rule that fires for this call (its count goes down), or None."""
        with self._lock:
            for rule in self._rules:
                if rule.operation in (operation, "*"):
                    rule.count -= 1
                    if rule.count == 0:
                        self._rules.remove(rule)
                    return rule
        return None

    def rules(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(rule) for rule in self._rules]

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def record(self, operation: str, params: Any, status: int, error: str = "") -> None:
        with self._lock:
            self._log.append({"operation": operation, "params": params, "status": status,
                              "error": error})

    def requests(self, operation: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self._log if operation in (None, r["operation"])]

    def clear_requests(self) -> None:
        with self._lock:
            self._log.clear()
