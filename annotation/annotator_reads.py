"""Reads behind an annotator's page view and save: the hottest requests of the platform.

Each is one fixed SQL statement (see `annotation.sqlrows`), built once per database vendor.
Callers get model instances with their relations cached, as `select_related` would give them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit
from annotation.sqlrows import Columns, attach, db_connection, fetch_all

_A, _P, _B = Columns(Annotator, "a"), Columns(Project, "p"), Columns(Batch, "b")
_S, _R, _I = Columns(Assignment, "s"), Columns(Response, "r"), Columns(Item, "i")


@dataclass(frozen=True)
class WorkState:
    """What an annotator's page needs: who they are, their active assignment in their batch
    (the earliest, as `assignment_next` picks it), its first item not completed yet (the
    response with its item) and how many of the unit's items are done."""

    annotator: Annotator
    assignment: Assignment | None
    current: Response | None
    done: int
    total: int

    def unit_state(self) -> tuple[Response | None, int, int]:
        return self.current, self.done, self.total


def annotator_with_response(key: str, response_id: int | None) -> tuple[Annotator | None, Response | None]:
    """The annotator behind an access key (with project and batch) and `response_of_annotator`
    (without the item's project) in one query: what a save reads before it validates the answer.

    The response also carries `unit_progress`, (items done, items) of its unit as read, so that
    the page after a save that completes no item needs no second read (`WorkState`'s counts)."""
    db = db_connection()
    rows = fetch_all(_annotator_with_response_sql(db.vendor), [response_id, key], name="annotator_progress", db=db)
    if not rows:
        return None, None
    row = rows[0]
    annotator = _annotator_from_row(row, db)
    start = _A.width + _P.width + _B.width
    response = _R.build(row, start, db)
    if response is not None:
        item = _I.build(row, start + _R.width, db)
        if item.project_id == annotator.project_id:
            attach(item, "project", annotator.project)
        attach(response, "item", item)
        assignment = _S.build(row, start + _R.width + _I.width, db)
        attach(assignment, "annotator", annotator)
        attach(response, "assignment", assignment)
        response.unit_progress = (row[-2], row[-1])
    return annotator, response


def work_state(key: str) -> WorkState | None:
    """The annotator behind an access key, the active assignment and `unit_state`, in one query
    and one row: the current response and its item come whole, the unit's others only counted
    (sending every item's passage cost PostgreSQL more than the rest of the query)."""
    active = Assignment.Status.ACTIVE
    db = db_connection()
    rows = fetch_all(_work_state_sql(db.vendor), [active, active, key], name="work_state_one", db=db)
    if not rows:
        return None
    row = rows[0]
    annotator = _annotator_from_row(row, db)
    start = _A.width + _P.width + _B.width
    assignment = _S.build(row, start, db)
    if assignment is None:
        return WorkState(annotator, None, None, 0, 0)
    attach(assignment, "annotator", annotator)
    response_start = start + _S.width
    current = _R.build(row, response_start, db)
    if current is not None:
        attach(current, "item", _I.build(row, response_start + _R.width, db))
        attach(current, "assignment", assignment)
    done, total = row[-2], row[-1]
    return WorkState(annotator, assignment, current, done, total)


def unit_state(assignment: Assignment) -> tuple[Response | None, int, int]:
    """The first item not completed yet (with its item), and how many of the unit's are done."""
    responses = []
    for row in fetch_all(_unit_sql(db_connection().vendor), [assignment.pk], name="unit"):
        response = _R.build(row, 0)
        attach(response, "item", _I.build(row, _R.width))
        attach(response, "assignment", assignment)
        responses.append(response)
    return _unit_state(responses)


def response_of_annotator(response_id: int, annotator: Annotator | int, *, for_update: bool = False) -> Response | None:
    """A response only if it belongs to this annotator (an instance or an id): nobody reads
    another's work.

    With its item (and the item's project) and assignment; `for_update` locks the response row
    (PostgreSQL; SQLite's IMMEDIATE transactions already hold the write lock) inside the
    caller's transaction.
    """
    annotator_id = annotator if isinstance(annotator, int) else annotator.pk
    rows = fetch_all(_response_sql(db_connection().vendor, for_update), [response_id, annotator_id],
                     name="response_locked" if for_update else "response")
    if not rows:
        return None
    row = rows[0]
    response, item = _R.build(row, 0), _I.build(row, _R.width)
    attach(item, "project", _P.build(row, _R.width + _I.width))
    attach(response, "item", item)
    assignment = _S.build(row, _R.width + _I.width + _P.width)
    if not isinstance(annotator, int):
        attach(assignment, "annotator", annotator)
    attach(response, "assignment", assignment)
    return response


def _unit_state(responses: list[Response]) -> tuple[Response | None, int, int]:
    done = sum(1 for r in responses if r.completed_at is not None)
    current = next((r for r in responses if r.completed_at is None), None)
    return current, done, len(responses)


def _annotator_from_row(row, db=None) -> Annotator:
    annotator = _A.build(row, 0, db)
    attach(annotator, "project", _P.build(row, _A.width, db))
    attach(annotator, "batch", _B.build(row, _A.width + _P.width, db))
    return annotator


def _annotator_sql(extra_columns: str, extra_joins: str) -> str:
    """The annotator (by access key), project and batch, plus what a caller joins to them."""
    a, p, b = _A, _P, _B
    return (
        f"SELECT {a.sql()}, {p.sql()}, {b.sql()}{extra_columns} FROM {a.table} a"
        f" INNER JOIN {p.table} p ON {p.pk} = {a.column('project')}"
        f" LEFT OUTER JOIN {b.table} b ON {b.pk} = {a.column('batch')}{extra_joins}"
        f" WHERE {a.column('access_key')} = %s"
    )


def unit_progress_columns(assignment_pk: str) -> str:
    """Two last columns: the assignment's items done, and its items (`unit_state`'s counts)."""
    r = Columns(Response, "r3")
    of_unit = f"FROM {r.table} r3 WHERE {r.column('assignment')} = {assignment_pk}"
    return f", (SELECT COUNT({r.column('completed_at')}) {of_unit}), (SELECT COUNT(*) {of_unit})"


def current_assignment_id_sql() -> str:
    """A subquery: the id of annotator `a`'s current assignment, the earliest active one of their
    batch (what a page view shows). One parameter: the active status."""
    s2, u = Columns(Assignment, "s2"), Columns(Unit, "u")
    return (
        f"(SELECT MIN({s2.pk}) FROM {s2.table} s2 INNER JOIN {u.table} u ON {u.pk} = {s2.column('unit')}"
        f" WHERE {s2.column('annotator')} = {_A.pk} AND {u.column('batch')} = {_A.column('batch')}"
        f" AND {s2.column('status')} = %s)"
    )


def first_open_response_id_sql(assignment_pk: str, *, excluding: str | None = None) -> str:
    """A subquery: the id of the assignment's first response not completed, by position (the
    item a page view shows), other than `excluding`."""
    r2 = Columns(Response, "r2")
    other = f" AND {r2.pk} <> {excluding}" if excluding else ""
    return (
        f"(SELECT {r2.pk} FROM {r2.table} r2 WHERE {r2.column('assignment')} = {assignment_pk}"
        f" AND {r2.column('completed_at')} IS NULL{other} ORDER BY {r2.column('position')}, {r2.pk} LIMIT 1)"
    )


@lru_cache(maxsize=None)
def _work_state_sql(vendor: str) -> str:
    a, s, r, i = _A, _S, _R, _I
    active = current_assignment_id_sql()
    # the unit's first item not completed yet: the only response (and item) sent whole
    current = first_open_response_id_sql(s.pk)
    return _annotator_sql(
        extra_columns=f", {s.sql()}, {r.sql()}, {i.sql()}{unit_progress_columns(s.pk)}",
        extra_joins=(
            # `s.annotator_id = a.id` first lets the database reach s through that index (the
            # subquery alone in the join made PostgreSQL hash the whole assignment table)
            f" LEFT OUTER JOIN {s.table} s ON {s.column('annotator')} = {a.pk}"
            f" AND {s.column('status')} = %s AND {s.pk} = {active}"
            f" LEFT OUTER JOIN {r.table} r ON {r.column('assignment')} = {s.pk} AND {r.pk} = {current}"
            f" LEFT OUTER JOIN {i.table} i ON {i.pk} = {r.column('item')}"
        ),
    )


@lru_cache(maxsize=None)
def _annotator_with_response_sql(vendor: str) -> str:
    r, i, s = _R, _I, _S
    return _annotator_sql(
        extra_columns=f", {r.sql()}, {i.sql()}, {s.sql()}{unit_progress_columns(s.pk)}",
        extra_joins=(
            f" LEFT OUTER JOIN ({r.table} r INNER JOIN {i.table} i ON {i.pk} = {r.column('item')}"
            f" INNER JOIN {s.table} s ON {s.pk} = {r.column('assignment')})"
            f" ON {r.pk} = %s AND {s.column('annotator')} = {_A.pk}"
        ),
    )


@lru_cache(maxsize=None)
def _unit_sql(vendor: str) -> str:
    r, i = _R, _I
    return (
        f"SELECT {r.sql()}, {i.sql()} FROM {r.table} r INNER JOIN {i.table} i ON {i.pk} = {r.column('item')}"
        f" WHERE {r.column('assignment')} = %s ORDER BY {r.column('position')}"
    )


@lru_cache(maxsize=None)
def _response_sql(vendor: str, for_update: bool) -> str:
    r, i, p, s = _R, _I, _P, _S
    lock = " FOR UPDATE OF r" if for_update and db_connection().features.has_select_for_update_of else ""
    return (
        f"SELECT {r.sql()}, {i.sql()}, {p.sql()}, {s.sql()} FROM {r.table} r"
        f" INNER JOIN {i.table} i ON {i.pk} = {r.column('item')}"
        f" INNER JOIN {p.table} p ON {p.pk} = {i.column('project')}"
        f" INNER JOIN {s.table} s ON {s.pk} = {r.column('assignment')}"
        f" WHERE {r.pk} = %s AND {s.column('annotator')} = %s{lock}"
    )
