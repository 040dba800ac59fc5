"""The local endpoint's state: one SQLite database (stdlib ``sqlite3``), so a file keeps
studies, submissions, bonuses and the balance across restarts; ``:memory:`` for tests.

All access goes through ``Store.transaction()``: one connection, one lock, IMMEDIATE
transactions, so the threaded HTTP server never sees half an update. A study keeps its
request fields as JSON in ``data``; status and counters are columns.
"""
from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from annotation.prolific.fees import ACADEMIC_FEE_RATE, Cost, cost

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS studies (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, internal_name TEXT,
    status TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL, published REAL,
    reserved INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS submissions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    study_id TEXT NOT NULL REFERENCES studies(id), participant_id TEXT NOT NULL,
    status TEXT NOT NULL, started REAL NOT NULL, completed REAL, code TEXT,
    return_requested INTEGER NOT NULL DEFAULT 0, rejection_category TEXT, message TEXT);
CREATE INDEX IF NOT EXISTS submissions_study ON submissions (study_id, status);
CREATE TABLE IF NOT EXISTS bonuses (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, study_id TEXT NOT NULL,
    rows TEXT NOT NULL, amount INTEGER NOT NULL, fees INTEGER NOT NULL, vat INTEGER NOT NULL,
    times_paid INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
"""
FREEING = ("RETURNED", "TIMED-OUT", "REJECTED")


def iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


class Store:
    def __init__(self, path: str = ":memory:", *, balance: int = 1_000_000, token: str,
                 fee_rate: Decimal = ACADEMIC_FEE_RATE, vat_rate: Decimal = Decimal(0),
                 currency: str = "GBP") -> None:
        self.path = str(path)
        self.token = token
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        with self._lock:
            self._db.executescript(SCHEMA)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
        defaults = {"balance": str(int(balance)), "clock_offset": "0", "user_id": self.new_id(),
                    "workspace_id": self.new_id(), "fee_rate": str(fee_rate),
                    "vat_rate": str(vat_rate), "currency": currency}
        with self.transaction() as db:
            for key, value in defaults.items():
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

    @staticmethod
    def new_id() -> str:
        """A 24-hex id, like Prolific's (Mongo ObjectIds)."""
        return secrets.token_hex(12)

    def meta(self, key: str) -> str:
        with self.transaction() as db:
            return db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]

    def set_meta(self, key: str, value: object) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def now(self) -> float:
        return time.time() + float(self.meta("clock_offset"))

    def cost(self, rewards: int) -> Cost:
        """Fee and VAT at this workspace's rates (the client's fee rule)."""
        return cost(rewards, fee_rate=Decimal(self.meta("fee_rate")),
                    vat_rate=Decimal(self.meta("vat_rate")))

    def balance(self) -> int:
        return int(self.meta("balance"))

    def charge(self, amount: int) -> bool:
        """Take ``amount`` from the balance; False (nothing taken) when it is short."""
        with self.transaction():
            available = self.balance()
            if amount > available:
                return False
            self.set_meta("balance", available - amount)
            return True

    # --- rows -------------------------------------------------------------------------
    def rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self.transaction() as db:
            return db.execute(sql, params).fetchall()

    def row(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        with self.transaction() as db:
            return db.execute(sql, params).fetchone()

    def execute(self, sql: str, params: tuple = ()) -> None:
        with self.transaction() as db:
            db.execute(sql, params)

    def study_row(self, study_id: str) -> sqlite3.Row | None:
        return self.row("SELECT * FROM studies WHERE id = ?", (study_id,))

    def submission_row(self, submission_id: str) -> sqlite3.Row | None:
        return self.row("SELECT * FROM submissions WHERE id = ?", (submission_id,))

    def places_taken(self, study_id: str) -> int:
        marks = ",".join("?" * len(FREEING))
        return self.row(f"SELECT COUNT(*) FROM submissions WHERE study_id = ? AND status NOT IN "
                        f"({marks})", (study_id, *FREEING))[0]

    def summary(self) -> dict[str, Any]:
        count = lambda table: self.row(f"SELECT COUNT(*) FROM {table}")[0]  # noqa: E731
        return {"balance": self.balance(), "currency": self.meta("currency"), "now": self.now(),
                "path": self.path, "studies": count("studies"),
                "submissions": count("submissions"), "bonuses": count("bonuses"),
                "workspace_id": self.meta("workspace_id")}


def loads(text: str) -> Any:
    return json.loads(text)


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
