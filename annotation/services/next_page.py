"""Saving the next page of an item in one statement (PostgreSQL): the annotator's hot write.

The usual save (`responses.response_save_page`) reads the response, its item, assignment,
annotator and project, validates, then writes: two round trips, and the read made a third of
the save's work. Here the caller already has what the read would give: the answers the page
was rendered from (the page carries them back, see `surveys.flow.page_state`) and the item
(`annotation.item_cache`). One UPDATE then writes the page only if every one of those claims
still holds in the database, and returns what the next page needs. The claims need no
signature: a claim that does not hold makes the statement change nothing, and the caller then
saves the usual way, which reads and enforces everything itself.

Checked in the statement: the access key owns the response through an active assignment; the
response's item is the remembered item (id and creation time) and its answers are exactly the
ones validated against; the item is not complete; the project's kind is the one that validated.
Checked here, before it: the page is the item's next page, and answering it does not complete
the item (completing one submits the unit: that stays with the usual way, in its transaction).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.utils import timezone

from annotation.annotator_reads import unit_progress_columns
from annotation.models import Annotator, Assignment, Item, Project, Response
from annotation.sqlrows import Columns, attach, db_connection, fetch_all, update_row

from .responses import ACTIVITY_RESOLUTION, next_page_slug, timing_of_page

_R, _S, _A, _P, _I = (Columns(Response, "r"), Columns(Assignment, "s"), Columns(Annotator, "a"),
                      Columns(Project, "p"), Columns(Item, "i"))


@dataclass(frozen=True)
class NextPageSaved:
    """The page as written: the annotator (with project), the response (with item and
    assignment; answers and timings as stored) and the unit's items done and total."""

    annotator: Annotator
    response: Response
    done: int
    total: int


def can_save_in_one_statement() -> bool:
    """UPDATE ... FROM ... RETURNING with the joined tables' columns: PostgreSQL (SQLite's
    RETURNING sees only the updated table)."""
    return db_connection().vendor == "postgresql"


def response_save_next_page(*, access_key: str, response_id: int, item: Item, kind_slug: str,
                            answers_before: dict[str, Any], page_slug: str, answer: dict[str, Any],
                            shown_at: datetime | None) -> NextPageSaved | None:
    """Write `answer` as the next page of the item, or change nothing and return None when this
    is not that case: another page, a page that completes the item, or a claim that no longer
    holds (a double submit, another tab, a released assignment, an unknown key). `answer` must
    have been validated against `item.payload` and `answers_before`."""
    db = db_connection()
    if db.vendor != "postgresql" or page_slug in answers_before:
        return None
    payload = item.payload
    if next_page_slug(kind_slug, payload, answers_before) != page_slug:
        return None
    answers = {**answers_before, page_slug: answer}
    if next_page_slug(kind_slug, payload, answers) is None:
        return None
    now = timezone.now()
    json_field = Response._meta.get_field("answers")
    params = [
        json_field.get_db_prep_save(answers, db),
        json_field.get_db_prep_save({page_slug: timing_of_page(None, shown_at, now)}, db),
        response_id, item.pk, json_field.get_db_prep_save(answers_before, db),
        Item._meta.get_field("created_at").get_db_prep_save(item.created_at, db),
        Assignment.Status.ACTIVE, access_key, kind_slug,
    ]
    rows = fetch_all(_save_sql(), params, name="next_page_save", db=db)
    if not rows:
        return None
    row = rows[0]
    response = _R.build(row, 0, db)
    assignment = _S.build(row, _R.width, db)
    annotator = _A.build(row, _R.width + _S.width, db)
    project = _P.build(row, _R.width + _S.width + _A.width, db)
    attach(annotator, "project", project)
    attach(assignment, "annotator", annotator)
    attach(item, "project", project)
    attach(response, "item", item)
    attach(response, "assignment", assignment)
    if now - assignment.last_activity_at >= ACTIVITY_RESOLUTION:
        update_row(Assignment, assignment.pk, {"last_activity_at": now})
        assignment.last_activity_at = now
    return NextPageSaved(annotator, response, row[-2], row[-1])


@lru_cache(maxsize=None)
def _save_sql() -> str:
    r, s, a, p, i = _R, _S, _A, _P, _I

    def bare(columns: Columns, name: str) -> str:
        return columns.column(name).split(".", 1)[1]

    return (
        f"UPDATE {r.table} AS r SET {bare(r, 'answers')} = %s::jsonb,"
        f" {bare(r, 'timings')} = {r.column('timings')} || %s::jsonb"
        f" FROM {s.table} s, {a.table} a, {p.table} p, {i.table} i"
        f" WHERE {r.pk} = %s AND {r.column('item')} = %s AND {r.column('answers')} = %s::jsonb"
        f" AND {r.column('completed_at')} IS NULL"
        f" AND {i.pk} = {r.column('item')} AND {i.column('created_at')} = %s"
        f" AND {s.pk} = {r.column('assignment')} AND {s.column('status')} = %s"
        f" AND {a.pk} = {s.column('annotator')} AND {a.column('access_key')} = %s"
        f" AND {p.pk} = {a.column('project')} AND {p.column('kind')} = %s"
        f" RETURNING {r.sql()}, {s.sql()}, {a.sql()}, {p.sql()}{unit_progress_columns(s.pk)}"
    )
