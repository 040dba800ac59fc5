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
Checked here, before it: the page is the item's next page.

A page that completes the item (one save in seven on ReCAM, and it cost twice a plain save the
usual way: a read, a write, the assignment's check, then a read of the next item) is written in
the same statement with its completion time, which then also returns the unit's next item not
completed, as the next page view would read it. It claims one more thing: the assignment is the
annotator's current one (the earliest active one of their batch), which the next page view
would show. When the item was the unit's last, the caller submits the assignment as the usual
save does (`responses.assignment_submit_if_complete`, a statement of its own after this one has
committed, so two items completed at once in two tabs both see the other's completion).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.utils import timezone

from annotation.annotator_reads import current_assignment_id_sql, first_open_response_id_sql, unit_progress_columns
from annotation.models import Annotator, Assignment, Item, Project, Response
from annotation.sqlrows import Columns, attach, db_connection, fetch_all, update_row

from .responses import ACTIVITY_RESOLUTION, next_page_slug, timing_of_page

_R, _S, _A, _P, _I = (Columns(Response, "r"), Columns(Assignment, "s"), Columns(Annotator, "a"),
                      Columns(Project, "p"), Columns(Item, "i"))


@dataclass(frozen=True)
class NextPageSaved:
    """The page as written: the annotator (with project), the response (with item and
    assignment; answers and timings as stored) and the unit's items done and total, after it.
    When the page completed the item: `item_completed`, and the unit's next item not completed
    (`next_response`, with item and assignment), None when it was the last."""

    annotator: Annotator
    response: Response
    done: int
    total: int
    item_completed: bool = False
    next_response: Response | None = None


def can_save_in_one_statement() -> bool:
    """UPDATE ... FROM ... RETURNING with the joined tables' columns: PostgreSQL (SQLite's
    RETURNING sees only the updated table)."""
    return db_connection().vendor == "postgresql"


def response_save_next_page(*, access_key: str, response_id: int, item: Item, kind_slug: str,
                            answers_before: dict[str, Any], page_slug: str, answer: dict[str, Any],
                            shown_at: datetime | None) -> NextPageSaved | None:
    """Write `answer` as the next page of the item, or change nothing and return None when this
    is not that case: another page, or a claim that no longer holds (a double submit, another
    tab, a released assignment, an unknown key, an assignment that is not the current one).
    `answer` must have been validated against `item.payload` and `answers_before`."""
    db = db_connection()
    if db.vendor != "postgresql" or not is_next_page(kind_slug, item.payload, answers_before, page_slug):
        return None
    answers = {**answers_before, page_slug: answer}
    completes = next_page_slug(kind_slug, item.payload, answers) is None
    now = timezone.now()
    json_field = Response._meta.get_field("answers")
    params = [
        json_field.get_db_prep_save(answers, db),
        json_field.get_db_prep_save({page_slug: timing_of_page(None, shown_at, now)}, db),
    ]
    if completes:
        params.append(Response._meta.get_field("completed_at").get_db_prep_save(now, db))
    params += [
        response_id, item.pk, json_field.get_db_prep_save(answers_before, db),
        Item._meta.get_field("created_at").get_db_prep_save(item.created_at, db),
        Assignment.Status.ACTIVE, access_key, kind_slug,
    ]
    if completes:
        params.append(Assignment.Status.ACTIVE)
    rows = fetch_all(_save_sql(completes), params, name="next_page_complete" if completes else "next_page_save", db=db)
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
    progress = _R.width + _S.width + _A.width + _P.width
    done, total = row[progress], row[progress + 1]
    if not completes:
        _note_activity(assignment, now)
        return NextPageSaved(annotator, response, done, total)
    # the counts were read before the write: this item is one more done
    following = _R.build(row, progress + 4, db)
    if following is not None:
        following_item = _I.build(row, progress + 4 + _R.width, db)
        attach(following_item, "project", project)
        attach(following, "item", following_item)
        attach(following, "assignment", assignment)
        _note_activity(assignment, now)  # (after the unit's last item, submitting it notes it)
    return NextPageSaved(annotator, response, done + 1, total, item_completed=True, next_response=following)


def is_next_page(kind_slug: str, payload: dict[str, Any], answers_before: dict[str, Any], page_slug: str) -> bool:
    """Whether `page_slug` is the item's next page after `answers_before`: the only page this
    save takes (an earlier page answered again goes the usual way, which checks its lock)."""
    return page_slug not in answers_before and next_page_slug(kind_slug, payload, answers_before) == page_slug


def _note_activity(assignment: Assignment, now: datetime) -> None:
    if now - assignment.last_activity_at >= ACTIVITY_RESOLUTION:
        update_row(Assignment, assignment.pk, {"last_activity_at": now})
        assignment.last_activity_at = now


@lru_cache(maxsize=None)
def _save_sql(completes: bool) -> str:
    r, s, a, p, i = _R, _S, _A, _P, _I

    update = (
        f"UPDATE {r.table} AS r SET {r.bare('answers')} = %s::jsonb,"
        f" {r.bare('timings')} = {r.column('timings')} || %s::jsonb"
        + (f", {r.bare('completed_at')} = %s" if completes else "")
        + f" FROM {s.table} s, {a.table} a, {p.table} p, {i.table} i"
        f" WHERE {r.pk} = %s AND {r.column('item')} = %s AND {r.column('answers')} = %s::jsonb"
        f" AND {r.column('completed_at')} IS NULL"
        f" AND {i.pk} = {r.column('item')} AND {i.column('created_at')} = %s"
        f" AND {s.pk} = {r.column('assignment')} AND {s.column('status')} = %s"
        f" AND {a.pk} = {s.column('annotator')} AND {a.column('access_key')} = %s"
        f" AND {p.pk} = {a.column('project')} AND {p.column('kind')} = %s"
    )
    returning = f" RETURNING {r.sql()}, {s.sql()}, {a.sql()}, {p.sql()}{unit_progress_columns(s.pk)}"
    if not completes:
        return update + returning
    current = f" AND {s.pk} = {current_assignment_id_sql()}"  # the assignment the next page view shows
    n, ni = Columns(Response, "n"), Columns(Item, "ni")
    # the statement reads the rows as they were before it: this response still counts as not
    # completed there, so the next one is the first other response not completed
    following = first_open_response_id_sql("w.w_assignment", excluding="w.w_response")
    return (
        f"WITH w AS ({update}{current}{returning}, {r.pk} AS w_response, {s.pk} AS w_assignment)"
        f" SELECT w.*, {n.sql()}, {ni.sql()} FROM w LEFT OUTER JOIN {n.table} n ON {n.pk} = {following}"
        f" LEFT OUTER JOIN {ni.table} ni ON {ni.pk} = {n.column('item')}"
    )
