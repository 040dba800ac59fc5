"""Saving an annotator's answers page by page, enforcing the kind's protocol on the server."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.kinds import get_kind
from annotation.models import Assignment, Response
from annotation.selectors import response_of_annotator
from annotation.sqlrows import Columns, fetch_all, update_row

from .assignments import assignment_reclaim


#: an assignment's last activity is stored when older than this (or when an item completes), not
#: at every page: abandoned work is released after `Batch.release_after_minutes` (30 by default)
ACTIVITY_RESOLUTION = timedelta(seconds=60)


class ProtocolError(Exception):
    """The request breaks the flow's rules (a locked answer, a page not reached yet)."""


@dataclass(frozen=True)
class SaveResult:
    changed: bool
    item_completed: bool
    assignment_submitted: bool
    #: the response as written (answers, timings, completed_at), when this save wrote it
    response: Response | None = None


def next_page_slug(kind_slug: str, payload: dict[str, Any], answers: dict[str, Any]) -> str | None:
    """The first page of the item not answered yet; None when the item is complete."""
    for page in get_kind(kind_slug).pages(payload):
        if page.slug not in answers:
            return page.slug
    return None


def response_save_page(
    *,
    response_id: int,
    annotator_id: int,
    page_slug: str,
    answer: dict[str, Any],
    shown_at: datetime | None = None,
    seen: Response | None = None,
) -> SaveResult:
    """Store one page's answer. Idempotent: the same answer twice changes nothing.

    Preconditions: the response belongs to an active assignment of this annotator; the page is
    the next one of the item, or an earlier one that does not lock. A different answer to a
    locking page, or to any page of a completed item, raises ProtocolError.

    `seen` is the response as the caller read it (with item, project and assignment), without
    a lock. The common case, the next page of an active assignment, is then written only if
    neither the answers nor the assignment's status changed since (compare-and-set), with one
    UPDATE committed on its own (two in a transaction when an item completes or the
    assignment's activity is due): the write lock is never held across a read and the Python
    around it. Anything else, or a lost race, goes the locked way, which reads the response
    again.
    """
    now = timezone.now()
    if seen is not None and seen.pk == response_id and seen.assignment.annotator_id == annotator_id:
        result = _save_if_unchanged(seen, page_slug, answer, shown_at, now)
        if result is not None:
            return result
    with transaction.atomic():
        response = response_of_annotator(response_id, annotator_id, for_update=True)
        if response is None:
            raise ProtocolError(_("This item is not part of your work."))
        assignment = response.assignment
        if assignment.status == Assignment.Status.RELEASED and not assignment_reclaim(assignment=assignment):
            raise ProtocolError(_("This work was released because it was left idle too long; it has gone to somebody else."))
        if assignment.status not in (Assignment.Status.ACTIVE, Assignment.Status.SUBMITTED):
            raise ProtocolError(_("This work has already been reviewed and can no longer change."))
        kind = get_kind(response.item.project.kind)
        payload = response.item.payload
        page = kind.page(payload, page_slug)
        previous = response.answers.get(page_slug)
        if previous is not None:
            if previous == answer:
                return SaveResult(False, response.completed_at is not None, assignment.status == Assignment.Status.SUBMITTED)
            if page.locks:
                raise ProtocolError(_("Your answer on “%(page)s” is final and cannot be changed.") % {"page": page.title})
            if response.completed_at is not None:
                raise ProtocolError(_("This item is complete; its answers can no longer change."))
        elif page_slug != next_page_slug(response.item.project.kind, payload, response.answers):
            raise ProtocolError(_("Please answer the pages in order."))

        fields = _apply(response, page_slug, answer, shown_at, now)
        _response_update(response, fields)
        submitted = _touch_assignment(assignment, now, item_completed=response.completed_at is not None)
    return SaveResult(True, response.completed_at is not None, submitted, response)


def _apply(response: Response, page_slug: str, answer: dict[str, Any], shown_at: datetime | None,
           now: datetime) -> list[str]:
    """Put the answer and its timing on `response`; the fields that changed."""
    response.answers[page_slug] = answer
    response.timings[page_slug] = timing_of_page(response.timings.get(page_slug), shown_at, now)
    fields = ["answers", "timings"]
    if next_page_slug(response.item.project.kind, response.item.payload, response.answers) is None:
        response.completed_at = now
        fields.append("completed_at")
    return fields


def _save_if_unchanged(seen: Response, page_slug: str, answer: dict[str, Any], shown_at: datetime | None,
                       now: datetime) -> SaveResult | None:
    """The next page of an active assignment, written only if the response and the assignment's
    status are still as `seen`; None when this is not that case or the row changed meanwhile."""
    assignment = seen.assignment
    if assignment.status != Assignment.Status.ACTIVE or seen.completed_at is not None:
        return None
    if page_slug in seen.answers or page_slug != next_page_slug(seen.item.project.kind, seen.item.payload, seen.answers):
        return None
    old_answers = seen.answers
    response = copy.copy(seen)
    response.answers, response.timings = dict(old_answers), dict(seen.timings)
    fields = _apply(response, page_slug, answer, shown_at, now)
    item_completed = response.completed_at is not None

    def write() -> bool:
        return bool(update_row(
            Response, response.pk, {name: getattr(response, name) for name in fields},
            unless_changed={"answers": old_answers},
            where_related=(Assignment, assignment.pk, {"status": Assignment.Status.ACTIVE}),
        ))

    # Each statement commits on its own: SQLite holds its write lock only while a statement runs
    # in C, never while this thread waits for the GIL between two statements (which, with 16
    # annotators on 4 threads a process, took milliseconds). Should the process die between the
    # answer and the assignment, `assignment_submit_if_complete` finishes the job on the next view.
    if not write():
        return None
    if not item_completed and now - assignment.last_activity_at < ACTIVITY_RESOLUTION:
        return SaveResult(True, False, False, response)
    submitted = _touch_assignment(assignment, now, item_completed=item_completed)
    return SaveResult(True, item_completed, submitted, response)


def timing_of_page(previous: dict[str, Any] | None, shown_at: datetime | None, now: datetime) -> dict[str, Any]:
    """A page's stored timing: when it was shown and saved, and the seconds spent on it (added to
    `previous` seconds when an earlier page is answered again)."""
    seconds = max(0.0, (now - shown_at).total_seconds()) if shown_at else None
    earlier = (previous or {}).get("seconds") or 0.0
    return {
        "shown_at": shown_at.isoformat() if shown_at else None,
        "saved_at": now.isoformat(),
        "seconds": None if seconds is None else round(earlier + seconds, 3),
    }


def _response_update(response: Response, fields: list[str]) -> None:
    """`response.save(update_fields=fields)` as one fixed UPDATE (the hot write of every page)."""
    update_row(Response, response.pk, {name: getattr(response, name) for name in fields})


def _touch_assignment(assignment: Assignment, now: datetime, *, item_completed: bool) -> bool:
    """Note the activity; when an item completed, submit the assignment if it was its last.
    Whether the assignment is submitted now."""
    if item_completed:
        return assignment_submit_if_complete(assignment.pk, now=now)
    update_row(Assignment, assignment.pk, {"last_activity_at": now})
    return assignment.status == Assignment.Status.SUBMITTED


def assignment_submit_if_complete(assignment_id: int, *, now: datetime | None = None) -> bool:
    """Submit an active assignment whose items are all complete, and note the activity: one
    statement, so it needs no transaction and is safe to repeat (a save that died between
    its answer and this finds its assignment finished by the next page view). Whether the
    assignment is submitted now."""
    now = now or timezone.now()
    stamp = Assignment._meta.get_field("last_activity_at").get_db_prep_save(now, connection)
    active, submitted = Assignment.Status.ACTIVE, Assignment.Status.SUBMITTED
    params = [stamp, active, assignment_id, submitted, active, assignment_id, stamp, assignment_id]
    returning = connection.features.can_return_columns_from_insert  # UPDATE ... RETURNING: SQLite 3.35+
    rows = fetch_all(_submit_sql(connection.vendor, returning), params, name="submit_if_complete")
    if not returning:
        rows = list(Assignment.objects.filter(pk=assignment_id).values_list("status"))
    return bool(rows) and rows[0][0] == submitted


@lru_cache(maxsize=None)
def _submit_sql(vendor: str, returning: bool) -> str:
    s, r = Columns(Assignment, "s"), Columns(Response, "r")
    qn = connection.ops.quote_name

    def column(name: str) -> str:
        return qn(Assignment._meta.get_field(name).column)

    complete = (f"{column('status')} = %s AND NOT EXISTS (SELECT 1 FROM {r.table} r"
                f" WHERE {r.column('assignment')} = %s AND {r.column('completed_at')} IS NULL)")
    # every right-hand side reads the row as it was, so both CASEs test the old status
    return (
        f"UPDATE {s.table} SET {column('last_activity_at')} = %s,"
        f" {column('status')} = CASE WHEN {complete} THEN %s ELSE {column('status')} END,"
        f" {column('submitted_at')} = CASE WHEN {complete} THEN %s ELSE {column('submitted_at')} END"
        f" WHERE {qn(Assignment._meta.pk.column)} = %s" + (f" RETURNING {column('status')}" if returning else "")
    )

