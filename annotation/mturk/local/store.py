"""The local MTurk endpoint's state: HITs, assignments, workers, qualifications and the balance
in one SQLite database (``annotation.local_endpoint.SqliteStore``: a file keeps them across
restarts, ``:memory:`` is for tests; all access goes through ``Store.transaction()``).
"""

from __future__ import annotations

import secrets
import string
from decimal import Decimal
from typing import Any

from annotation.local_endpoint import SqliteStore, dumps
from annotation.mturk.fees import money
from annotation.mturk.qualifications import ADULT, NUMBER_HITS_APPROVED, PERCENT_ASSIGNMENTS_APPROVED

from .errors import request_error

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hit_types (
    id TEXT PRIMARY KEY, signature TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    description TEXT NOT NULL, reward TEXT NOT NULL, assignment_duration INTEGER NOT NULL,
    auto_approval_delay INTEGER NOT NULL, keywords TEXT NOT NULL DEFAULT '',
    qualification_requirements TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS hits (
    id TEXT PRIMARY KEY, hit_type_id TEXT NOT NULL REFERENCES hit_types(id),
    question TEXT NOT NULL, created REAL NOT NULL, expiration REAL NOT NULL,
    max_assignments INTEGER NOT NULL, requester_annotation TEXT NOT NULL DEFAULT '',
    disposed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS assignments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    hit_id TEXT NOT NULL REFERENCES hits(id), worker_id TEXT NOT NULL,
    status TEXT NOT NULL,  -- Accepted, Submitted, Approved, Rejected, Returned, Abandoned
    accept_time REAL NOT NULL, deadline REAL NOT NULL, submit_time REAL,
    auto_approval_time REAL, approval_time REAL, rejection_time REAL,
    answer TEXT, requester_feedback TEXT);
CREATE INDEX IF NOT EXISTS assignments_hit ON assignments (hit_id, status);
CREATE TABLE IF NOT EXISTS tokens (
    scope TEXT NOT NULL, token TEXT NOT NULL, result TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (scope, token));
CREATE TABLE IF NOT EXISTS bonuses (
    id INTEGER PRIMARY KEY AUTOINCREMENT, worker_id TEXT NOT NULL, assignment_id TEXT NOT NULL,
    amount TEXT NOT NULL, fee TEXT NOT NULL, reason TEXT NOT NULL, grant_time REAL NOT NULL);
CREATE TABLE IF NOT EXISTS qualification_types (
    id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT NOT NULL,
    keywords TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, auto_granted INTEGER NOT NULL,
    created REAL NOT NULL, test TEXT NOT NULL DEFAULT '', answer_key TEXT NOT NULL DEFAULT '',
    test_duration INTEGER, retry_delay INTEGER);
CREATE TABLE IF NOT EXISTS workers (
    id TEXT PRIMARY KEY, country TEXT NOT NULL, subdivision TEXT, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS worker_qualifications (
    worker_id TEXT NOT NULL, qualification_type_id TEXT NOT NULL, value INTEGER NOT NULL,
    granted REAL NOT NULL, PRIMARY KEY (worker_id, qualification_type_id));
CREATE TABLE IF NOT EXISTS blocks (worker_id TEXT PRIMARY KEY, reason TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS notifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT, worker_id TEXT NOT NULL, subject TEXT NOT NULL,
    message TEXT NOT NULL, sent REAL NOT NULL);
"""
TOKEN_LIFETIME = 24 * 3600
_ID_CHARS = string.ascii_uppercase + string.digits
# A worker who signs in for the first time: US, 99 % approved, 5000 HITs, adult, no Masters.
DEFAULT_WORKER: dict[str, Any] = {
    "country": "US",
    "subdivision": None,
    "qualifications": {PERCENT_ASSIGNMENTS_APPROVED: 99, NUMBER_HITS_APPROVED: 5000, ADULT: 1},
}


class Store(SqliteStore):
    def __init__(
        self, path: str = ":memory:", *, balance: Decimal | str = "10000.00", require_https: bool = False
    ) -> None:
        self.require_https = require_https
        super().__init__(path, SCHEMA, {"balance": str(money(balance))})

    # --- ids ----------------------------------------------------------------------------
    @staticmethod
    def new_id(first: str = "3", length: int = 30) -> str:
        return first + "".join(secrets.choice(_ID_CHARS) for _ in range(length - 1))

    # --- money ------------------------------------------------------------------------
    def balance(self) -> Decimal:
        return Decimal(self.meta("balance"))

    def set_balance(self, amount: Decimal | str) -> None:
        self.set_meta("balance", str(money(amount)))

    def charge(self, amount: Decimal) -> None:
        with self.transaction():
            available = self.balance()
            if amount > available:
                raise request_error(
                    "AWS.MechanicalTurk.InsufficientFunds",
                    f"This Requester has insufficient funds in their account to complete this "
                    f"transaction: ${amount} needed, ${available} available.",
                )
            self.set_balance(available - amount)

    # --- UniqueRequestToken -----------------------------------------------------------
    def token_result(self, scope: str, token: str | None) -> str | None:
        """What an earlier request with this token (within 24 hours) produced, if any."""
        if not token:
            return None
        with self.transaction() as db:
            row = db.execute(
                "SELECT result, created FROM tokens WHERE scope = ? AND token = ?", (scope, token)
            ).fetchone()
        if row is None or row["created"] < self.now() - TOKEN_LIFETIME:
            return None
        return row["result"]

    def remember_token(self, scope: str, token: str | None, result: str) -> None:
        if token:
            with self.transaction() as db:
                db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?)", (scope, token, result, self.now()))

    # --- workers ----------------------------------------------------------------------
    def ensure_worker(self, worker_id: str) -> None:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM workers WHERE id = ?", (worker_id,)).fetchone():
                return
            now = self.now()
            db.execute(
                "INSERT INTO workers VALUES (?, ?, ?, ?)",
                (worker_id, DEFAULT_WORKER["country"], DEFAULT_WORKER["subdivision"], now),
            )
            for type_id, value in DEFAULT_WORKER["qualifications"].items():
                db.execute("INSERT INTO worker_qualifications VALUES (?, ?, ?, ?)", (worker_id, type_id, value, now))

    def set_worker(
        self,
        worker_id: str,
        *,
        country: str | None = None,
        subdivision: str | None = None,
        qualifications: dict[str, int | None] | None = None,
    ) -> dict[str, Any]:
        """Change a worker's locale and qualification values (None removes one)."""
        with self.transaction() as db:
            self.ensure_worker(worker_id)
            if country is not None:
                db.execute(
                    "UPDATE workers SET country = ?, subdivision = ? WHERE id = ?",
                    (country.upper(), subdivision, worker_id),
                )
            for type_id, value in (qualifications or {}).items():
                if value is None:
                    db.execute(
                        "DELETE FROM worker_qualifications WHERE worker_id = ? AND qualification_type_id = ?",
                        (worker_id, type_id),
                    )
                else:
                    self.grant(worker_id, type_id, int(value))
            return self.worker(worker_id)

    def grant(self, worker_id: str, type_id: str, value: int) -> None:
        with self.transaction() as db:
            self.ensure_worker(worker_id)
            db.execute(
                "INSERT OR REPLACE INTO worker_qualifications VALUES (?, ?, ?, ?)",
                (worker_id, type_id, value, self.now()),
            )

    def worker(self, worker_id: str) -> dict[str, Any]:
        """The worker's profile (created with the defaults on first use)."""
        with self.transaction() as db:
            self.ensure_worker(worker_id)
            row = db.execute("SELECT * FROM workers WHERE id = ?", (worker_id,)).fetchone()
            quals = db.execute(
                "SELECT qualification_type_id, value FROM worker_qualifications WHERE worker_id = ?", (worker_id,)
            ).fetchall()
            blocked = db.execute("SELECT reason FROM blocks WHERE worker_id = ?", (worker_id,)).fetchone()
        return {
            "worker_id": worker_id,
            "country": row["country"],
            "subdivision": row["subdivision"],
            "qualifications": {q[0]: q[1] for q in quals},
            "blocked": blocked["reason"] if blocked else None,
        }

    # --- lookups ----------------------------------------------------------------------
    def sweep(self) -> None:
        """Accepted assignments past their deadline become Abandoned (their slot frees up)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE assignments SET status = 'Abandoned' WHERE status = 'Accepted' AND deadline <= ?", (self.now(),)
            )

    def summary(self) -> dict[str, Any]:
        count = self.count
        return {
            "balance": str(self.balance()),
            "now": self.now(),
            "path": self.path,
            "hit_types": count("hit_types"),
            "hits": count("hits"),
            "assignments": count("assignments"),
            "bonuses": count("bonuses"),
            "workers": count("workers"),
            "blocks": count("blocks"),
            "notifications": count("notifications"),
        }


__all__ = ["DEFAULT_WORKER", "SCHEMA", "Store", "dumps"]
