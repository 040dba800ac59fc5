"""The writes of handing out a unit, as fixed SQL (the rules stay in `services.assignments`).

An annotator who finishes a unit gets the next one in the same request. Built by the ORM, the
five statements of that hand-out (release the batch's idle assignments, lock the batch, read the
unit's items, create the assignment in a savepoint, create its responses) cost 8.9 % of all the
CPU of an annotator walk on PostgreSQL, though they run once every 35 saves: compiling each
queryset cost more than running it (py-spy, bench/README.md round 6). Here each is written once
from the models' metadata (`sqlrows.Columns`) and, on PostgreSQL, prepared per connection.
"""
from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Sequence

from annotation.models import Assignment, Batch, Response, Unit, UnitItem
from annotation.sqlrows import Columns, db_connection, execute, fetch_all

_S, _B, _V, _R = Columns(Assignment, "s"), Columns(Batch, "b"), Columns(UnitItem, "v"), Columns(Response, "r")


def release_idle(*, batch_id: int, idle_since: datetime) -> int:
    """Active assignments of the batch whose last activity is before `idle_since` become
    released (their slots reopen); how many."""
    db = db_connection()
    field = Assignment._meta.get_field("last_activity_at")
    params = [Assignment.Status.RELEASED.value, Assignment.Status.ACTIVE.value,
              field.get_db_prep_value(idle_since, db), batch_id]
    return execute(_release_sql(db.vendor), params, name="release_idle", db=db)


def lock_batch(batch_id: int) -> None:
    """The batch's row lock (PostgreSQL: SELECT ... FOR UPDATE), held to the transaction's end:
    concurrent annotators take a batch's slots one at a time."""
    fetch_all(_lock_sql(), [batch_id], name="lock_batch")


def unit_items(unit_id: int) -> list[tuple[int, int]]:
    """The unit's (item id, position), in position order."""
    return [(item, position) for item, position in fetch_all(_unit_items_sql(), [unit_id], name="unit_items")]


def insert_assignment(*, unit_id: int, annotator_id: int, now: datetime) -> Assignment | None:
    """A new active assignment of the unit to the annotator, or None if they have one on it
    already (the unique constraint: the insert does nothing, so no savepoint is needed)."""
    db = db_connection()
    started = Assignment._meta.get_field("started_at").get_db_prep_value(now, db)
    params = [unit_id, annotator_id, Assignment.Status.ACTIVE.value, "", started, started]
    if db.features.can_return_columns_from_insert:
        rows = fetch_all(_insert_assignment_sql(db.vendor, True), params, name="insert_assignment", db=db)
        new_id = rows[0][0] if rows else None
    else:  # SQLite before 3.35: no RETURNING
        inserted = execute(_insert_assignment_sql(db.vendor, False), params, db=db)
        new_id = fetch_all(_assignment_id_sql(), [unit_id, annotator_id], db=db)[0][0] if inserted else None
    if new_id is None:
        return None
    return Assignment(id=new_id, unit_id=unit_id, annotator_id=annotator_id, status=Assignment.Status.ACTIVE,
                      channel_assignment_id="", started_at=now, last_activity_at=now, submitted_at=None)


#: rows a response insert writes at most (SQLite allowed 999 parameters before 3.32)
RESPONSES_PER_STATEMENT = 100


def insert_responses(assignment_id: int, items: Sequence[tuple[int, int]]) -> None:
    """The assignment's empty responses, one per (item id, position)."""
    db = db_connection()
    empty = Response._meta.get_field("answers").get_db_prep_save({}, db)
    for start in range(0, len(items), RESPONSES_PER_STATEMENT):
        chunk = items[start:start + RESPONSES_PER_STATEMENT]
        params: list = []
        for item_id, position in chunk:
            params += [assignment_id, item_id, position, empty, empty]
        # prepared once per number of rows: a unit's size, so a few names per connection
        execute(_insert_responses_sql(db.vendor, len(chunk)), params, name=f"insert_responses_{len(chunk)}", db=db)


@lru_cache(maxsize=None)
def _release_sql(vendor: str) -> str:
    u = Columns(Unit, "u2")
    return (
        f"UPDATE {_S.table} SET {_S.bare('status')} = %s"
        f" WHERE {_S.bare('status')} = %s AND {_S.bare('last_activity_at')} < %s"
        f" AND {_S.bare('unit')} IN (SELECT {u.pk} FROM {u.table} u2 WHERE {u.column('batch')} = %s)"
    )


@lru_cache(maxsize=None)
def _lock_sql() -> str:
    return f"SELECT {_B.pk} FROM {_B.table} b WHERE {_B.pk} = %s FOR UPDATE"


@lru_cache(maxsize=None)
def _unit_items_sql() -> str:
    return (f"SELECT {_V.column('item')}, {_V.column('position')} FROM {_V.table} v"
            f" WHERE {_V.column('unit')} = %s ORDER BY {_V.column('position')}")


@lru_cache(maxsize=None)
def _insert_assignment_sql(vendor: str, returning: bool) -> str:
    columns = ", ".join(_S.bare(name) for name in
                        ("unit", "annotator", "status", "channel_assignment_id", "started_at", "last_activity_at"))
    return (
        f"INSERT INTO {_S.table} ({columns}) VALUES (%s, %s, %s, %s, %s, %s)"
        f" ON CONFLICT ({_S.bare('unit')}, {_S.bare('annotator')}) DO NOTHING"
        + (f" RETURNING {_S.bare('id')}" if returning else "")
    )


@lru_cache(maxsize=None)
def _assignment_id_sql() -> str:
    return f"SELECT {_S.pk} FROM {_S.table} s WHERE {_S.column('unit')} = %s AND {_S.column('annotator')} = %s"


@lru_cache(maxsize=None)
def _insert_responses_sql(vendor: str, count: int) -> str:
    columns = ", ".join(_R.bare(name) for name in ("assignment", "item", "position", "answers", "timings"))
    cast = "::jsonb" if vendor == "postgresql" else ""
    row = f"(%s, %s, %s, %s{cast}, %s{cast})"
    return f"INSERT INTO {_R.table} ({columns}) VALUES {', '.join([row] * count)}"
