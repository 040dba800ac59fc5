"""Reads behind handing out a unit when an annotator finishes one: once every few items, but it
was the costliest request of the flow (13 ms of CPU on SQLite, 33 ms in PostgreSQL for a batch of
600 units): its unit choice counted every unit's slots and tested every unit's items against what
the annotator had seen, row by row. Here the units an annotator has seen are collected first (a
handful), and the slots are counted in one grouped pass over the batch.

Fixed SQL, as `annotation.annotator_reads`; the rules are those of `services.assignments`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.db import connection

from annotation.models import Assignment, Item, Response, Unit, UnitItem
from annotation.sqlrows import Columns, fetch_all

_S = Columns(Assignment, "s")


@dataclass(frozen=True)
class AnnotatorAssignments:
    """An annotator's assignments (all batches, in id order), each with its batch and whether
    it still has an item not completed."""

    rows: list[tuple[Assignment, int, bool]]

    def current(self, batch_id: int) -> Assignment | None:
        """The earliest active assignment in the batch: the one the annotator works on."""
        return next((s for s, b, _ in self.rows if b == batch_id and s.status == Assignment.Status.ACTIVE), None)

    def unfinished_released(self, batch_id: int) -> Assignment | None:
        """The earliest assignment in the batch that was released with items left to answer."""
        return next(
            (s for s, b, open_items in self.rows
             if b == batch_id and s.status == Assignment.Status.RELEASED and open_items),
            None,
        )

    def __len__(self) -> int:
        return len(self.rows)


def annotator_assignments(annotator_id: int) -> AnnotatorAssignments:
    rows = fetch_all(_assignments_sql(connection.vendor), [annotator_id], name="annotator_assignments")
    width = _S.width
    return AnnotatorAssignments([(_S.build(row, 0), row[width], bool(row[width + 1])) for row in rows])


def next_unit_id(*, batch_id: int, annotator_id: int, project_id: int, slots: int, exclusive_groups: bool) -> int | None:
    """The unit to hand out next, or None.

    First the batch's every-annotator unit (the consistency set), if this annotator has neither
    had it nor any of its items; then the unit with the fewest holding assignments (below
    `slots`), earliest first, none of whose items the annotator has had (in any batch) and, for
    kinds whose groups are exclusive, none of whose items shares a group with an item they had.
    """
    params: list = [*Assignment.HOLDING, batch_id, annotator_id, annotator_id]
    if exclusive_groups:
        params += [project_id, project_id, annotator_id]
    params.append(slots)
    rows = fetch_all(_next_unit_sql(connection.vendor, exclusive_groups), params,
                     name="next_unit_groups" if exclusive_groups else "next_unit")
    return rows[0][0] if rows else None


def slots_taken(*, unit_id: int, annotator_id: int) -> tuple[int, int, bool]:
    """(holding assignments of the unit, assignments of the annotator, whether the unit is the
    every-annotator one): what a unit chosen outside the lock is checked against inside it."""
    rows = fetch_all(_slots_sql(connection.vendor), [*Assignment.HOLDING, unit_id, annotator_id, unit_id],
                     name="slots_taken")
    holds, mine, every_annotator = rows[0]
    return holds, mine, bool(every_annotator)


@lru_cache(maxsize=None)
def _assignments_sql(vendor: str) -> str:
    s, u, r = _S, Columns(Unit, "u"), Columns(Response, "r")
    return (
        f"SELECT {s.sql()}, {u.column('batch')},"
        f" EXISTS(SELECT 1 FROM {r.table} r WHERE {r.column('assignment')} = {s.pk}"
        f" AND {r.column('completed_at')} IS NULL)"
        f" FROM {s.table} s INNER JOIN {u.table} u ON {u.pk} = {s.column('unit')}"
        f" WHERE {s.column('annotator')} = %s ORDER BY {s.pk}"
    )


def _had_items_sql() -> str:
    """The items of every unit this annotator has an assignment on (parameter: annotator)."""
    w, x = Columns(UnitItem, "w"), Columns(Assignment, "x")
    return (
        f"SELECT {w.column('item')} FROM {w.table} w INNER JOIN {x.table} x ON {x.column('unit')} = {w.column('unit')}"
        f" WHERE {x.column('annotator')} = %s"
    )


@lru_cache(maxsize=None)
def _next_unit_sql(vendor: str, exclusive_groups: bool) -> str:
    u, a, v = Columns(Unit, "u"), Columns(Assignment, "a"), Columns(UnitItem, "v")
    holding = ", ".join(["%s"] * len(Assignment.HOLDING))
    # units holding an item the annotator had (few), collected once, not tested per unit
    seen = f"SELECT {v.column('unit')} FROM {v.table} v WHERE {v.column('item')} IN ({_had_items_sql()})"
    x = Columns(Assignment, "x2")
    mine = f"SELECT {x.column('unit')} FROM {x.table} x2 WHERE {x.column('annotator')} = %s"
    group_rule = ""
    if exclusive_groups:
        g, i, i2, w, y = (Columns(UnitItem, "g"), Columns(Item, "i"), Columns(Item, "i2"), Columns(UnitItem, "w2"),
                          Columns(Assignment, "y"))
        groups = (
            f"SELECT {i2.column('group_key')} FROM {i2.table} i2"
            f" INNER JOIN {w.table} w2 ON {w.column('item')} = {i2.pk}"
            f" INNER JOIN {y.table} y ON {y.column('unit')} = {w.column('unit')}"
            f" WHERE {i2.column('project')} = %s AND {y.column('annotator')} = %s AND {i2.column('group_key')} <> ''"
        )
        group_seen = (
            f"SELECT {g.column('unit')} FROM {g.table} g INNER JOIN {i.table} i ON {i.pk} = {g.column('item')}"
            f" WHERE {i.column('project')} = %s AND {i.column('group_key')} IN ({groups})"
        )
        group_rule = f" AND ({u.column('every_annotator')} OR {u.pk} NOT IN ({group_seen}))"
    holds = f"COUNT({a.pk})"
    return (
        f"SELECT {u.pk} FROM {u.table} u"
        f" LEFT OUTER JOIN {a.table} a ON {a.column('unit')} = {u.pk} AND {a.column('status')} IN ({holding})"
        f" WHERE {u.column('batch')} = %s AND {u.pk} NOT IN ({seen}) AND {u.pk} NOT IN ({mine}){group_rule}"
        f" GROUP BY {u.pk}, {u.column('position')}, {u.column('every_annotator')}"
        f" HAVING {u.column('every_annotator')} OR {holds} < %s"
        f" ORDER BY {u.column('every_annotator')} DESC, {holds}, {u.column('position')} LIMIT 1"
    )


@lru_cache(maxsize=None)
def _slots_sql(vendor: str) -> str:
    a, b, u = Columns(Assignment, "a"), Columns(Assignment, "b"), Columns(Unit, "u")
    holding = ", ".join(["%s"] * len(Assignment.HOLDING))
    return (
        f"SELECT (SELECT COUNT(*) FROM {a.table} a WHERE {a.column('status')} IN ({holding})"
        f" AND {a.column('unit')} = %s),"
        f" (SELECT COUNT(*) FROM {b.table} b WHERE {b.column('annotator')} = %s),"
        f" (SELECT {u.column('every_annotator')} FROM {u.table} u WHERE {u.pk} = %s)"
    )
