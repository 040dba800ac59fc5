"""Faults the local model endpoint injects on request (in memory, not persisted): each kind at a
rate, drawn from a seeded generator (the same seed and requests give the same faults), or the
kinds of the next requests in order (`next`), for tests that need one exact fault.

- ``429``: Too Many Requests with ``retry-after: <retry_after>`` seconds (nothing answered);
- ``500``: an internal server error;
- ``slow``: the reply comes `slow_seconds` late (past a client's timeout: the client retries);
- ``malformed``: a reply whose content is not JSON;
- ``refusal``: a reply whose message is a refusal, without content.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from typing import Any

FAULT_KINDS = ("429", "500", "slow", "malformed", "refusal")


class Faults:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.configure()

    def configure(
        self,
        *,
        rates: dict[str, float] | None = None,
        seed: int = 0,
        next: list[str] | None = None,  # noqa: A002  (the admin API's key)
        retry_after: float = 1.0,
        slow_seconds: float = 5.0,
    ) -> dict[str, Any]:
        rates = {str(k): float(v) for k, v in (rates or {}).items()}
        unknown = [k for k in [*rates, *(next or [])] if k not in FAULT_KINDS]
        if unknown:
            raise ValueError(f"unknown fault kind(s) {', '.join(unknown)}; known: {', '.join(FAULT_KINDS)}")
        if any(rate < 0 for rate in rates.values()) or sum(rates.values()) > 1:
            raise ValueError("rates are probabilities from 0 whose sum is at most 1")
        if not 0 <= retry_after <= 60 or not 0 <= slow_seconds <= 600:
            raise ValueError("retry_after is 0-60 seconds, slow_seconds 0-600")
        with self._lock:
            self.rates, self.seed = rates, int(seed)
            self.retry_after, self.slow_seconds = float(retry_after), float(slow_seconds)
            self._next = deque(next or [])
            self._rng = random.Random(self.seed)
        return self.state()

    def take(self) -> str:
        """The fault of the next request ("": none)."""
        with self._lock:
            if self._next:
                return self._next.popleft()
            draw, edge = self._rng.random(), 0.0
            for kind in FAULT_KINDS:
                edge += self.rates.get(kind, 0.0)
                if draw < edge:
                    return kind
        return ""

    def state(self) -> dict[str, Any]:
        return {
            "rates": dict(self.rates),
            "seed": self.seed,
            "next": list(self._next),
            "retry_after": self.retry_after,
            "slow_seconds": self.slow_seconds,
        }
