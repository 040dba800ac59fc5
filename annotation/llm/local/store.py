"""The local model endpoint's state in one SQLite database (a file keeps it across restarts,
``:memory:`` is for tests): each scripted model (accuracy, seed, bias), its true answers by item
key, and the log of the chat completions it answered (what was paid, and for what)."""

from __future__ import annotations

import json
from typing import Any

from annotation.local_endpoint import SqliteStore, dumps

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scripts (
    model TEXT PRIMARY KEY, accuracy REAL NOT NULL, seed INTEGER NOT NULL, bias TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS truths (
    model TEXT NOT NULL, item TEXT NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (model, item));
CREATE TABLE IF NOT EXISTS requests (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, model TEXT NOT NULL, item TEXT NOT NULL,
    request_hash TEXT NOT NULL, status INTEGER NOT NULL, fault TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS requests_hash ON requests (request_hash);
"""
#: a reply the client received and its tokens paid: answered, and not too late to be read
PAID = "status = 200 AND fault != 'slow'"


class Store(SqliteStore):
    def __init__(self, path: str = ":memory:") -> None:
        super().__init__(path, SCHEMA, {})

    def script(self, model: str) -> dict[str, Any] | None:
        row = self.row("SELECT accuracy, seed, bias FROM scripts WHERE model = ?", (model,))
        if row is None:
            return None
        return {"accuracy": row["accuracy"], "seed": row["seed"], "bias": json.loads(row["bias"])}

    def set_script(
        self, model: str, *, accuracy: float, seed: int, bias: dict[str, Any], answers: dict[str, Any]
    ) -> dict[str, Any]:
        """Script `model`: right with probability `accuracy`; `answers` (item key -> field ->
        value) are added to its true answers."""
        if not 0 <= accuracy <= 1:
            raise ValueError("accuracy is a probability, from 0 to 1")
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO scripts VALUES (?, ?, ?, ?)", (model, accuracy, seed, dumps(bias)))
            db.executemany(
                "INSERT OR REPLACE INTO truths VALUES (?, ?, ?)",
                [(model, str(item), dumps(answer)) for item, answer in answers.items()],
            )
            known = db.execute("SELECT COUNT(*) FROM truths WHERE model = ?", (model,)).fetchone()[0]
        return {"model": model, "accuracy": accuracy, "seed": seed, "bias": bias, "answers": known}

    def truth(self, model: str, item: str) -> dict[str, Any] | None:
        row = self.row("SELECT answer FROM truths WHERE model = ? AND item = ?", (model, item))
        return None if row is None else json.loads(row["answer"])

    def clear_scripts(self) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM scripts")
            db.execute("DELETE FROM truths")

    def models(self) -> list[str]:
        return [row["model"] for row in self.rows("SELECT model FROM scripts ORDER BY model")]

    def record(
        self, *, model: str, item: str, request_hash: str, status: int, fault: str, tokens: tuple[int, int]
    ) -> None:
        self.execute(
            "INSERT INTO requests (model, item, request_hash, status, fault, input_tokens, output_tokens, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (model, item, request_hash, status, fault, tokens[0], tokens[1], self.now()),
        )

    def requests_summary(self, model: str | None = None) -> dict[str, Any]:
        """Counts of the completions asked for: by status and fault, those paid (tokens too) and
        requests paid more than once (the same model, messages and schema answered twice)."""
        where, params = ("WHERE model = ?", (model,)) if model else ("", ())
        by_status = self.rows(f"SELECT status, COUNT(*) AS n FROM requests {where} GROUP BY status", params)
        by_fault = self.rows(f"SELECT fault, COUNT(*) AS n FROM requests {where} GROUP BY fault", params)
        paid_where = f"{where} {'AND' if where else 'WHERE'} {PAID}"
        paid = self.one(
            f"SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0) "
            f"FROM requests {paid_where}",
            params,
        )
        twice = self.one(
            f"SELECT COUNT(*) FROM (SELECT request_hash FROM requests {paid_where} "
            "GROUP BY request_hash HAVING COUNT(*) > 1)",
            params,
        )[0]
        return {
            "total": sum(row["n"] for row in by_status),
            "by_status": {str(row["status"]): row["n"] for row in by_status},
            "by_fault": {row["fault"] or "none": row["n"] for row in by_fault},
            "paid": paid[0],
            "paid_input_tokens": paid[1],
            "paid_output_tokens": paid[2],
            "paid_twice": twice,
        }

    def request_rows(self, limit: int = 1000) -> list[dict[str, Any]]:
        return [dict(row) for row in self.rows("SELECT * FROM requests ORDER BY seq DESC LIMIT ?", (limit,))]

    def clear_requests(self) -> None:
        self.execute("DELETE FROM requests")
