"""Saving an annotator's answers page by page, with the kind's protocol enforced on the server.

One save path for every annotator page (invite links, the recruiting sites' frames): the
response is read, the protocol rules below decide, and the write is a compare-and-set on the
response's `version`, so two requests that read the same state never both write. A lost race
reads again and decides again: a double submit then finds its answer stored and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.kinds import UNTIMED_KEY, UNTIMED_REFUSE, UNTIMED_SUSPECT, TaskKind
from annotation.kinds.suggestions import Suggestion, kept_record
from annotation.models import Assignment, Response

from .adaptive import completion_queue
from .assignments import assignment_reclaim
from .study import check_answered

#: an assignment's last activity is stored when older than this (or when an item completes), not
#: at every page: abandoned work is released after `Batch.release_after_minutes`
ACTIVITY_RESOLUTION = timedelta(seconds=60)
#: reads and writes a save tries before it gives up on a response that keeps changing under it
MAX_ATTEMPTS = 5
EDITABLE = (Assignment.Status.ACTIVE, Assignment.Status.SUBMITTED)


class ProtocolError(Exception):
    """The request breaks the flow's rules (a locked answer, a page not reached yet)."""


class TooSoon(ProtocolError):
    """A page with a minimum time saved sooner; `wait`: the seconds still to wait from when it
    was first shown (the whole minimum when that time is unknown)."""

    def __init__(self, message: str, *, wait: float):
        super().__init__(message)
        self.wait = wait


@dataclass(frozen=True)
class SaveResult:
    changed: bool
    item_completed: bool
    assignment_submitted: bool
    #: the response as stored after this save (answers, timings, completed_at)
    response: Response
    #: live quality stopped the person's work at this save (a check item answered wrong)
    stopped: bool = False


def next_page_slug(kind: TaskKind, payload: dict[str, Any], answers: dict[str, Any]) -> str | None:
    """The first page of the item not answered yet; None when the item is complete."""
    for page in kind.pages(payload, answers):
        if page.slug not in answers:
            return page.slug
    return None


def check_page(response: Response, kind: TaskKind, page_slug: str, answer: dict[str, Any]) -> bool:
    """The protocol's rules for saving `answer` on `page_slug` of `response` (with its item and
    assignment): whether it changes anything (False: the same answer is stored already).

    Raises ProtocolError for a page of another's or reviewed work, a different answer to a
    locking page or to a completed item, or a page not reached yet.
    """
    if response.assignment.status not in EDITABLE:
        raise ProtocolError(_("This work has already been reviewed and can no longer change."))
    if response.assignment.study_hold:
        raise ProtocolError(_("This work is on hold: please reload the page to see why."))
    payload = response.item.payload
    page = kind.page(payload, page_slug, response.answers)
    previous = response.answers.get(page_slug)
    if previous is None:
        if page_slug != next_page_slug(kind, payload, response.answers):
            raise ProtocolError(_("Please answer the pages in order."))
        return True
    if previous == answer:
        return False
    if page.locks:
        raise ProtocolError(_("Your answer on “%(page)s” is final and cannot be changed.") % {"page": page.title})
    if response.completed_at is not None:
        raise ProtocolError(_("This item is complete; its answers can no longer change."))
    return True


def response_save_page(
    *,
    response: Response,
    kind: TaskKind,
    page_slug: str,
    answer: dict[str, Any],
    shown_at: datetime | None = None,
    from_page: bool = False,
    untimed: str = "missing",
    suggestions: Sequence[Suggestion] = (),
    model: str = "",
) -> SaveResult:
    """Store one page's answer. Idempotent: the same answer twice changes nothing.

    Preconditions: `response` belongs to the annotator who posted (the caller read it with
    `selectors.work.response_for_save`), with its item and assignment. See `check_page` for
    what is refused. Released work is taken back when its slot is still free. `from_page`: the
    save was posted by an annotator's page, whose note of when it was shown (`shown_at`, None
    when missing, malformed, expired or another response's, `untimed` saying which) is required:
    without it the time on the page is unknown and the too-fast rules could be dodged, so the save
    is refused; or, with the project's `untimed_saves: suspect`, stored with its time unknown and
    the reason, which the too-fast rules judge as too fast (quality.speed).
    `suggestions`: what the page showed of `model`'s labels; whether the answer kept each is
    stored with it (`Response.suggestions`), in the same write.
    """
    for _attempt in range(MAX_ATTEMPTS):
        assignment = response.assignment
        if assignment.study_hold:
            raise ProtocolError(_("This work is on hold: please reload the page to see why."))
        if assignment.status == Assignment.Status.RELEASED and not assignment_reclaim(assignment=assignment):
            raise ProtocolError(
                _("This work was released because it was left idle too long; it has gone to somebody else.")
            )
        try:
            changes = check_page(response, kind, page_slug, answer)
        except ProtocolError:
            fresh = _reread(response)
            if fresh.version == response.version and fresh.assignment.status == assignment.status:
                raise
            response = fresh  # decided on a stale read: decide again on what is stored now
            continue
        if not changes:
            return SaveResult(
                False, response.completed_at is not None, assignment.status == Assignment.Status.SUBMITTED, response
            )
        now = timezone.now()
        suspect = from_page and shown_at is None and _untimed_saves(kind, response) == UNTIMED_SUSPECT
        _check_time_on_page(kind, response, page_slug, shown_at, now, required=from_page and not suspect)
        answers = {**response.answers, page_slug: answer}
        timing = timing_of_page(response.timings.get(page_slug), shown_at, now, untimed=untimed if suspect else "")
        timings = {**response.timings, page_slug: timing}
        shown = kept_record(kind, response.item.payload, answers, suggestions, model)
        suggested = {**response.suggestions, page_slug: shown} if shown else response.suggestions
        done = next_page_slug(kind, response.item.payload, answers) is None
        completes = response.completed_at is None and done
        completed_at = response.completed_at or (now if done else None)
        # the version moves with the assignment's status too (assignments_set_status): an
        # unchanged version means the work is still as editable as check_page saw it. The condition
        # stays on this row alone: one through a join is sent as `id IN (SELECT ...)`, which
        # PostgreSQL does not check again after waiting for a concurrent save's row lock, so a
        # stale write would go through (found by bench/soak.py)
        written = Response.objects.filter(pk=response.pk, version=response.version).update(
            answers=answers,
            timings=timings,
            suggestions=suggested,
            completed_at=completed_at,
            version=F("version") + 1,
        )
        if written:
            response.answers, response.timings, response.completed_at = answers, timings, completed_at
            response.suggestions = suggested
            response.version += 1
            item_completed = completed_at is not None
            checked = completes and response.item.check_answer is not None
            if checked and check_answered(response=response, kind=kind):
                return SaveResult(True, True, False, response, stopped=True)
            submitted = _note_activity(assignment, now, last_item_completed=item_completed and _is_last(response))
            if completes and not checked:
                completion_queue(response=response, unit_done=submitted)
            return SaveResult(True, item_completed, submitted, response)
        response = _reread(response)
    raise ProtocolError(_("This item is being changed elsewhere right now; please try again."))


def _check_time_on_page(
    kind: TaskKind, response: Response, page_slug: str, shown_at: datetime | None, now: datetime, *, required: bool
) -> None:
    """A page with a minimum time is refused sooner than that after it was shown; any page
    posted by an annotator's page (`required`) or with a minimum time is refused when the time
    it was shown is unknown (a missing, malformed, expired or another response's note of it)."""
    if required and shown_at is None:
        raise ProtocolError(
            _("This page could not be timed (it was open too long, or sent without its form): please reload it.")
        )
    minimum = kind.page(response.item.payload, page_slug, response.answers).min_seconds
    if not minimum:
        return
    wait = minimum if shown_at is None else minimum - (now - shown_at).total_seconds()
    if wait > 0:
        raise TooSoon(
            _("Please take at least %(seconds)s seconds on this page before you continue.")
            % {"seconds": f"{minimum:g}"},
            wait=wait,
        )


def _untimed_saves(kind: TaskKind, response: Response) -> str:
    """The project's choice for a page's save whose time is unknown: refuse it, or store it suspect."""
    return str(kind.settings_for(response.item.project.settings).get("untimed_saves") or UNTIMED_REFUSE)


def _reread(response: Response) -> Response:
    """The response as stored now, with its item and assignment (after a lost compare-and-set)."""
    fresh = Response.objects.select_related("item", "assignment").get(pk=response.pk)
    fresh.item.project = response.item.project
    return fresh


def _is_last(response: Response) -> bool:
    """Whether the response's item is the last of its assignment (items are shown in order)."""
    return response.position + 1 >= response.assignment.item_count


def _note_activity(assignment: Assignment, now: datetime, *, last_item_completed: bool) -> bool:
    """Note the activity; when the last item completed, submit the assignment if all its items
    are complete (an item skipped by a forged post is caught at the next page view). Whether the
    assignment is submitted now."""
    if last_item_completed and assignment_submit_if_complete(assignment, now=now):
        return True
    if now - assignment.last_activity_at >= ACTIVITY_RESOLUTION:
        Assignment.objects.filter(pk=assignment.pk).update(last_activity_at=now)
        assignment.last_activity_at = now
    return assignment.status == Assignment.Status.SUBMITTED


def assignment_submit_if_complete(assignment: Assignment, *, now: datetime | None = None) -> bool:
    """Submit an active assignment whose items are all complete, noting the activity: one
    UPDATE, safe to repeat (a save that died between its answer and this is finished by the next
    page view). Whether the assignment is submitted now."""
    now = now or timezone.now()
    open_items = Response.objects.filter(assignment=OuterRef("pk"), completed_at__isnull=True)
    submitted = (
        Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.ACTIVE)
        .exclude(Exists(open_items))
        .update(status=Assignment.Status.SUBMITTED, submitted_at=now, last_activity_at=now)
    )
    if submitted:
        assignment.status, assignment.submitted_at, assignment.last_activity_at = Assignment.Status.SUBMITTED, now, now
        return True
    return assignment.status == Assignment.Status.SUBMITTED


def timing_of_page(
    previous: dict[str, Any] | None, shown_at: datetime | None, now: datetime, *, untimed: str = ""
) -> dict[str, Any]:
    """A page's stored timing: when it was shown and saved, and the seconds spent on it (added to
    `previous` seconds when an earlier page is answered again). `untimed`: the reason a page's
    save came without a usable note of when it was shown (`untimed_saves: suspect`), stored as
    `untimed` with the seconds unknown, so the too-fast rules judge it as suspect."""
    untimed = untimed or str((previous or {}).get(UNTIMED_KEY) or "")  # a suspect stays one when answered again
    seconds = max(0.0, (now - shown_at).total_seconds()) if shown_at else None
    earlier = (previous or {}).get("seconds") or 0.0
    timing = {
        "shown_at": shown_at.isoformat() if shown_at else None,
        "saved_at": now.isoformat(),
        "seconds": None if seconds is None or untimed else round(earlier + seconds, 3),
    }
    if untimed:
        timing[UNTIMED_KEY] = untimed
    return timing
