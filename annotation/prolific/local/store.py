"""The local Prolific endpoint's state: studies, submissions, bonuses and the balance in one
SQLite database (``annotation.local_endpoint.SqliteStore``: a file keeps them across restarts,
``:memory:`` is for tests; all access goes through ``Store.transaction()``). A study keeps its
request fields as JSON in ``data``; status and counters are columns.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from annotation.local_endpoint import SqliteStore, dumps
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
FREEING = ("RETURNED", "TIMED-OUT", "REJECTED", "SCREENED OUT")


def iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


class Store(SqliteStore):
    def __init__(
        self,
        path: str = ":memory:",
        *,
        balance: int = 1_000_000,
        token: str,
        fee_rate: Decimal = ACADEMIC_FEE_RATE,
        vat_rate: Decimal = Decimal(0),
        currency: str = "GBP",
    ) -> None:
        self.token = token
        super().__init__(
            path,
            SCHEMA,
            {
                "balance": str(int(balance)),
                "user_id": self.new_id(),
                "workspace_id": self.new_id(),
                "fee_rate": str(fee_rate),
                "vat_rate": str(vat_rate),
                "currency": currency,
                "screened_out_paid": "0",
            },
        )

    @staticmethod
    def new_id() -> str:
        """A 24-hex id, like Prolific's (Mongo ObjectIds)."""
        return secrets.token_hex(12)

    def cost(self, rewards: int) -> Cost:
        """Fee and VAT at this workspace's rates (the client's fee rule)."""
        return cost(rewards, fee_rate=Decimal(self.meta("fee_rate")), vat_rate=Decimal(self.meta("vat_rate")))

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
    def study_row(self, study_id: str) -> sqlite3.Row | None:
        return self.row("SELECT * FROM studies WHERE id = ?", (study_id,))

    def submission_row(self, submission_id: str) -> sqlite3.Row | None:
        return self.row("SELECT * FROM submissions WHERE id = ?", (submission_id,))

    def places_taken(self, study_id: str) -> int:
        marks = ",".join("?" * len(FREEING))
        return self.one(
            f"SELECT COUNT(*) FROM submissions WHERE study_id = ? AND status NOT IN ({marks})", (study_id, *FREEING)
        )[0]

    def summary(self) -> dict[str, Any]:
        count = self.count
        return {
            "balance": self.balance(),
            "currency": self.meta("currency"),
            "now": self.now(),
            "path": self.path,
            "studies": count("studies"),
            "submissions": count("submissions"),
            "bonuses": count("bonuses"),
            "screened_out_paid": int(self.meta("screened_out_paid")),
            "workspace_id": self.meta("workspace_id"),
        }


def loads(text: str) -> Any:
    return json.loads(text)


__all__ = ["FREEING", "SCHEMA", "Store", "dumps", "iso", "loads"]
