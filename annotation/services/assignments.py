"""Handing units to annotators: each item gets exactly N distinct annotators, nobody sees an
item twice, and work left idle is released to somebody else."""
from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Sequence

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.kinds import get_kind
from annotation.models import Annotator, Assignment, Batch, InviteLink, Item, Response, Unit, UnitItem
from annotation.unit_reads import annotator_assignments, next_unit_id, slots_taken

from . import assignment_rows


class NoWorkLeft(Exception):
    pass


class InviteClosed(Exception):
    pass


def annotator_join_via_invite(*, invite: InviteLink, known_key: str | None = None) -> Annotator:
    """The annotator behind an invite link: the one this browser already is, or a new one."""
    if not invite.active or invite.batch.status != Batch.Status.OPEN:
        raise InviteClosed(_("This invitation is closed."))
    project = invite.batch.project
    if known_key:
        existing = Annotator.objects.filter(access_key=known_key, project=project).first()
        if existing is not None:
            if existing.batch_id != invite.batch_id:
                existing.batch = invite.batch
                existing.save(update_fields=["batch"])
            return existing
    with transaction.atomic():
        if invite.max_annotators is not None:
            joined = Annotator.objects.filter(project=project, channel="invite", external_id__startswith=f"{invite.pk}-").count()
            if joined >= invite.max_annotators:
                raise InviteClosed(_("This invitation has been used by as many people as it allows."))
        return Annotator.objects.create(
            project=project,
            channel="invite",
            external_id=f"{invite.pk}-{secrets.token_hex(6)}",
            batch=invite.batch,
        )


def assignments_release_abandoned(*, batch: Batch | None = None, now=None) -> int:
    """Release active assignments idle longer than their batch allows; their slots reopen."""
    now = now or timezone.now()
    batches = [batch] if batch is not None else Batch.objects.filter(status=Batch.Status.OPEN)
    return sum(assignment_rows.release_idle(batch_id=b.pk, idle_since=now - timedelta(minutes=b.release_after_minutes))
               for b in batches)


def _seen(annotator: Annotator, exclusive_groups: bool) -> Exists:
    """A unit holds an item this annotator has had (in any batch), or, for kinds whose groups
    are exclusive, an item of a group they have had (the other context of a CoSimLex pair).
    (`unit_reads.next_unit_id` applies the same rule in one pass over a batch.)"""
    had = Q(item_id__in=UnitItem.objects.filter(unit__assignments__annotator=annotator).values("item_id"))
    if exclusive_groups:
        groups = (
            Item.objects.filter(project_id=annotator.project_id, unit_items__unit__assignments__annotator=annotator)
            .exclude(group_key="")
            .values("group_key")
        )
        had |= Q(item__group_key__in=groups, item__project_id=annotator.project_id)
    return Exists(UnitItem.objects.filter(had, unit=OuterRef("pk")))


def assignment_next(*, annotator: Annotator, batch: Batch) -> Assignment:
    """The annotator's current assignment in this batch, or a new one on a unit with a free slot.

    Raises NoWorkLeft when every unit is full or holds an item this annotator has seen.
    """
    mine = annotator_assignments(annotator.pk)
    current = mine.current(batch.pk)
    if current is not None:
        return current
    if batch.status != Batch.Status.OPEN:
        raise NoWorkLeft(_("This batch is closed."))
    assignments_release_abandoned(batch=batch)
    unfinished = mine.unfinished_released(batch.pk)
    if unfinished is not None and assignment_reclaim(assignment=unfinished):
        return unfinished
    # Choose the unit before taking the lock (the choice is the costly part), then check in the
    # lock that it still has a free slot and that this annotator took nothing meanwhile: on
    # SQLite every other writer waits while the lock is held.
    unit_id = _next_unit_id(batch, annotator)
    if unit_id is None:
        raise NoWorkLeft(_("There is no more work for you in this batch. Thank you!"))
    items = assignment_rows.unit_items(unit_id)
    with transaction.atomic():
        _lock_batch(batch)
        if _still_free(unit_id, batch, annotator, len(mine)):
            return _assign(unit_id, annotator, items=items)
    with transaction.atomic():  # somebody took the slot first: choose again, in the lock
        _lock_batch(batch)
        current = annotator_assignments(annotator.pk).current(batch.pk)  # or their other request got one
        if current is not None:
            return current
        unit_id = _next_unit_id(batch, annotator)
        if unit_id is None:
            raise NoWorkLeft(_("There is no more work for you in this batch. Thank you!"))
        return _assign(unit_id, annotator)


def _next_unit_id(batch: Batch, annotator: Annotator) -> int | None:
    return next_unit_id(
        batch_id=batch.pk, annotator_id=annotator.pk, project_id=annotator.project_id,
        slots=batch.assignments_per_unit, exclusive_groups=get_kind(annotator.project.kind).exclusive_groups,
    )


def _lock_batch(batch: Batch) -> None:
    """Concurrent annotators take slots one at a time (PostgreSQL); on SQLite the IMMEDIATE
    transaction already serializes writers, and there is no row lock to take."""
    if connection.features.has_select_for_update:
        assignment_rows.lock_batch(batch.pk)


def _still_free(unit_id: int, batch: Batch, annotator: Annotator, mine: int) -> bool:
    """The unit chosen outside the lock can still be given: a slot is free and the annotator
    has no assignment they did not have then (which could make an item of it seen)."""
    holds, annotators_assignments, every_annotator = slots_taken(unit_id=unit_id, annotator_id=annotator.pk)
    if annotators_assignments != mine:
        return False
    return every_annotator or holds < batch.assignments_per_unit


def _assign(unit: Unit | int, annotator: Annotator, lead: Sequence[int] = (),
            items: list[tuple[int, int]] | None = None) -> Assignment:
    """A new assignment of the unit (an instance or an id); ``lead`` items (ids) come first,
    before the unit's own (``items``: the unit's (item id, position), if read already)."""
    unit_id = unit if isinstance(unit, int) else unit.pk
    items = assignment_rows.unit_items(unit_id) if items is None else items
    assignment = assignment_rows.insert_assignment(unit_id=unit_id, annotator_id=annotator.pk, now=timezone.now())
    if assignment is None:  # they hold this unit already
        raise NoWorkLeft(_("There is no more work for you in this batch. Thank you!"))
    assignment.annotator = annotator
    rows = [(item_id, n) for n, item_id in enumerate(lead)] + [(item_id, len(lead) + pos) for item_id, pos in items]
    assignment_rows.insert_responses(assignment.pk, rows)
    return assignment


def _consistency_lead(batch: Batch, annotator: Annotator) -> list[int]:
    """The items of the batch's every-annotator unit this annotator has not answered yet.

    A channel that hands out single units (an MTurk HIT) cannot send a worker to that unit
    first, so its items lead the worker's first unit instead: every worker still rates the
    consistency set, before anything else, as the invite-link flow does.
    """
    had = Response.objects.filter(assignment__annotator=annotator).values("item_id")
    return list(
        UnitItem.objects.filter(unit__batch=batch, unit__every_annotator=True)
        .exclude(item_id__in=had)
        .order_by("unit__position", "position")
        .values_list("item_id", flat=True)
    )


def assignment_reclaim(*, assignment: Assignment) -> bool:
    """Give a released assignment back to its annotator if its slot is still free."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=assignment.unit.batch_id)
        fresh = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if fresh.status != Assignment.Status.RELEASED:
            return fresh.status == Assignment.Status.ACTIVE
        holds = Assignment.objects.filter(unit_id=fresh.unit_id, status__in=Assignment.HOLDING).count()
        if holds >= batch.assignments_per_unit and not fresh.unit.every_annotator:
            return False
        Assignment.objects.filter(pk=fresh.pk).update(
            status=Assignment.Status.ACTIVE, last_activity_at=timezone.now()
        )
        assignment.status = Assignment.Status.ACTIVE
        return True


class EntryRefused(Exception):
    """A channel sent somebody to work we cannot give them; the message is for that person."""


def assignment_open_for_channel(*, unit: Unit, annotator: Annotator, channel_assignment_id: str) -> Assignment:
    """The assignment of a unit the channel handed out itself (an accepted MTurk HIT).

    The channel decides who takes a slot; we still keep our own rules: nobody gets an item
    twice, nor (exclusive groups) a second item of a group, and the batch's consistency set
    comes first, inside the annotator's first unit. Opening it again (a reload, or a HIT
    returned and accepted again under a new assignment id) gives back the same assignment.
    """
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=unit.batch_id).first()
        existing = Assignment.objects.filter(unit=unit, annotator=annotator).first()
        if existing is not None:
            if existing.channel_assignment_id != channel_assignment_id or existing.status == Assignment.Status.RELEASED:
                Assignment.objects.filter(pk=existing.pk).update(
                    channel_assignment_id=channel_assignment_id,
                    status=Assignment.Status.ACTIVE if existing.status == Assignment.Status.RELEASED else existing.status,
                    last_activity_at=timezone.now(),
                )
                existing.refresh_from_db()
            return existing
        exclusive = get_kind(annotator.project.kind).exclusive_groups
        if Unit.objects.filter(pk=unit.pk).annotate(seen=_seen(annotator, exclusive)).filter(seen=True).exists():
            raise EntryRefused(_(
                "You have already worked on these items, or on items that must go to other people "
                "(for example the other context of a word pair). Please return this task."
            ))
        lead = [] if unit.every_annotator else _consistency_lead(unit.batch, annotator)
        assignment = _assign(unit, annotator, lead)
        Assignment.objects.filter(pk=assignment.pk).update(channel_assignment_id=channel_assignment_id)
        assignment.channel_assignment_id = channel_assignment_id
        return assignment


def annotator_for_channel(*, project, channel: str, external_id: str, batch: Batch | None = None) -> Annotator:
    """The project's annotator known to a channel by its own id (an MTurk workerId): one per person."""
    annotator, _created = Annotator.objects.get_or_create(
        project=project, channel=channel, external_id=external_id, defaults={"batch": batch}
    )
    return annotator
