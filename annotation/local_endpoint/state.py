"""What the local recruiting-site endpoints (``annotation.mturk.local``,
``annotation.prolific.local``) share of their state: one SQLite database, fault rules with a
request log, and the admin API's fault and request routes. Standard library only: an endpoint
runs without Django (``python -m annotation.<site>.local``)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON: how the stores keep structured fields."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class SqliteStore:
    """One SQLite connection behind one lock, so the threaded server never sees half an update:
    all access goes through `transaction()` (IMMEDIATE, nestable). A file keeps the state across
    restarts; ``:memory:`` is for tests. The schema must have ``meta (key, value)``; the clock
    reads ``meta.clock_offset``."""

    def __init__(self, path: str, schema: str, meta: dict[str, str]) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        with self._lock:
            self._db.executescript(schema)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
        with self.transaction() as db:
            for key, value in {"clock_offset": "0", **meta}.items():
                db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, value))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            outermost = self._depth == 0
            if outermost:
                self._db.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self._db
            except BaseException:
                self._depth -= 1
                if outermost:
                    self._db.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outermost:
                self._db.execute("COMMIT")

    def meta(self, key: str) -> str:
        with self._lock:
            return self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]

    def set_meta(self, key: str, value: object) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def now(self) -> float:
        """The endpoint's clock: real time plus what `advance_clock` added."""
        return time.time() + float(self.meta("clock_offset"))

    def advance_clock(self, seconds: float) -> float:
        """Move the endpoint's clock forward (deadlines, expirations, auto-approval)."""
        with self.transaction():
            self.set_meta("clock_offset", float(self.meta("clock_offset")) + seconds)
            return self.now()

    def rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self.transaction() as db:
            return db.execute(sql, params).fetchall()

    def row(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        with self.transaction() as db:
            return db.execute(sql, params).fetchone()

    def one(self, sql: str, params: tuple = ()) -> sqlite3.Row:
        """The row a query always finds (an aggregate, or a row this request has just written);
        none found is a bug in the endpoint, not a caller's mistake."""
        found = self.row(sql, params)
        if found is None:
            raise LookupError(f"no row for {sql!r} {params!r}")
        return found

    def execute(self, sql: str, params: tuple = ()) -> None:
        with self.transaction() as db:
            db.execute(sql, params)

    def count(self, table: str) -> int:
        return self.row(f"SELECT COUNT(*) FROM {table}")[0]  # type: ignore[index]


class FaultBook:
    """Fault rules and the request log of an endpoint (in memory, not persisted). A rule is a
    dataclass with `operation` (``*``: any) and `count`: it fires for the next `count` calls."""

    def __init__(self, log_size: int = 10000) -> None:
        self._lock = threading.Lock()
        self._rules: list[Any] = []
        self._log: deque[dict[str, Any]] = deque(maxlen=log_size)

    def keep(self, rule: Any) -> Any:
        with self._lock:
            self._rules.append(rule)
        return rule

    def take(self, operation: str) -> Any | None:
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

    def record(self, operation: str, **details: Any) -> None:
        with self._lock:
            self._log.append({"operation": operation, **details})

    def requests(self, operation: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self._log if operation in (None, r["operation"])]

    def clear_requests(self) -> None:
        with self._lock:
            self._log.clear()


def faults_route(faults: Any, key: tuple[str, str], query: dict[str, str], data: dict[str, Any]) -> Any:
    """The admin API's fault and request-log routes; None when `key` (method, path) is another's."""
    if key == ("POST", "/_local/faults"):
        return faults.add(**data).__dict__
    if key == ("GET", "/_local/faults"):
        return faults.rules()
    if key == ("GET", "/_local/requests"):
        return faults.requests(query.get("operation"))
    if key == ("DELETE", "/_local/faults"):
        faults.clear()
        return {"cleared": True}
    if key == ("DELETE", "/_local/requests"):
        faults.clear_requests()
        return {"cleared": True}
    return None


def json_object(raw: bytes) -> dict[str, Any]:
    """An admin request's body: a JSON object (ValueError otherwise)."""
    data = json.loads(raw or b"{}")
    if not isinstance(data, dict):
        raise ValueError("the body must be a JSON object")
    return data
