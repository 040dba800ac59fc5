"""Handing units to annotators: each item gets exactly N distinct annotators, nobody sees an
item twice, and work left idle is released to somebody else.

The rule of which unit comes next is `annotation.selectors.work.next_unit`; here it is applied
under the batch's lock, so two annotators never take the same last slot.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.channels import get_channel
from annotation.kinds import kind_of
from annotation.models import Annotator, Assignment, Batch, InviteLink, Response, Unit, UnitItem
from annotation.selectors.study import checks_to_mix, mixed_in, study_holds, training_to_give
from annotation.selectors.work import (
    annotator_assignments,
    current_assignment,
    next_posted_unit,
    next_unit,
    unit_item_ids,
    units_seen_by,
)


class NoWorkLeft(Exception):
    pass


class InviteClosed(Exception):
    pass


class InviteUsedUp(InviteClosed):
    """The link has had as many people as it allows (one, for a personal link): the page says how
    its own user resumes, and whom anybody else asks."""


class EntryRefused(Exception):
    """A channel sent somebody to work we cannot give them; the message is for that person."""


def annotator_join_via_invite(*, invite: InviteLink, known_key: str | None = None) -> Annotator:
    """The annotator behind an invite link: the one this browser already is, or a new one.
    Somebody who annotates a project never adjudicates in it, nor the other way round: a
    browser that is one of them is refused the other's link."""
    if not invite.active or invite.batch.status != Batch.Status.OPEN:
        raise InviteClosed(_("This invitation is closed."))
    project = invite.batch.project
    if known_key:
        existing = Annotator.objects.filter(access_key=known_key, project=project).first()
        if existing is not None and existing.role != invite.role:
            raise InviteClosed(
                _(
                    "You already take part in this project in another role; "
                    "its annotators and adjudicators must be different people."
                )
            )
        if existing is not None:
            if existing.batch_id != invite.batch_id:
                existing.batch = invite.batch
                existing.save(update_fields=["batch"])
            return existing
    with transaction.atomic():
        if invite.max_annotators is not None:
            joined = Annotator.objects.filter(
                project=project, channel="invite", external_id__startswith=f"{invite.pk}-"
            ).count()
            if joined >= invite.max_annotators:
                raise InviteUsedUp(_("This invitation has been used by as many people as it allows."))
        return Annotator.objects.create(
            project=project,
            channel="invite",
            external_id=f"{invite.pk}-{secrets.token_hex(6)}",
            batch=invite.batch,
            role=invite.role,
        )


def assignments_release_abandoned(*, batch: Batch | None = None, now: datetime | None = None) -> int:
    """Release active assignments idle longer than their batch allows, and, on a site that
    confirms entries (``Channel.confirms_at_entry``), work still unconfirmed
    UNCONFIRMED_RELEASE_MINUTES after it began: made-up ids never hold a place for long. Their
    slots reopen."""
    now = now or timezone.now()
    batches = [batch] if batch is not None else Batch.objects.filter(status=Batch.Status.OPEN)
    unconfirmed = Q(confirmed=False, started_at__lt=now - timedelta(minutes=settings.UNCONFIRMED_RELEASE_MINUTES))
    return sum(
        assignments_set_status(
            assignments=Assignment.objects.filter(unit__batch=b, status=Assignment.Status.ACTIVE).filter(
                Q(last_activity_at__lt=now - timedelta(minutes=b.release_after_minutes))
                | (unconfirmed if get_channel(b.channel).confirms_at_entry else Q(pk__in=[]))
            ),
            status=Assignment.Status.RELEASED,
        )
        for b in batches
    )


def assignments_set_status(*, assignments: QuerySet[Assignment], status: str, **values: Any) -> int:
    """Move the assignments that `assignments` selects (checked again as they are written) to
    `status`, with other field `values`. Their responses' versions move in the same transaction:
    a save compares and sets on the version alone, so one that read the work before it was
    reviewed or released writes nothing and decides again. How many assignments moved.

    Nothing selected (the usual sweep at a hand-out) opens no transaction, so on SQLite it takes
    no write lock."""
    ids = list(assignments.values_list("pk", flat=True))
    if not ids:
        return 0
    with transaction.atomic():
        moved = assignments.filter(pk__in=ids).update(status=status, **values)
        if moved:
            Response.objects.filter(assignment_id__in=ids).update(version=F("version") + 1)
    return moved


def assignment_next(*, annotator: Annotator, batch: Batch) -> Assignment:
    """The annotator's current assignment in this batch, or a new one on a unit with a free slot.

    Order of preference: the assignment they are working on; one of theirs that was released
    while unfinished, if its slot is still free; a new unit (`selectors.work.next_unit`).
    Raises NoWorkLeft when every unit is full or holds an item this annotator has seen.
    """
    mine = list(annotator_assignments(annotator, batch))
    current = next((a for a in mine if a.status == Assignment.Status.ACTIVE), None)
    if current is not None:
        return current
    if batch.status != Batch.Status.OPEN:
        raise NoWorkLeft(_("This batch is closed."))
    assignments_release_abandoned(batch=batch)
    for released in mine:
        unfinished = getattr(released, "open_items")  # noqa: B009 - an annotation of annotator_assignments
        if released.status == Assignment.Status.RELEASED and unfinished and assignment_reclaim(assignment=released):
            return released
    exclusive = kind_of(annotator.project).exclusive_groups
    with transaction.atomic():
        _lock(batch)
        current = current_assignment(annotator, batch.pk)  # their other tab may have got one meanwhile
        if current is not None:
            return current
        unit = next_unit(batch, annotator, exclusive_groups=exclusive)
        if unit is None:
            raise NoWorkLeft(_("There is no more work for you in this batch. Thank you!"))
        return _assign(unit, annotator, batch=batch)


def _lock(batch: Batch) -> None:
    """The batch's row lock, held to the transaction's end: annotators take its slots one at a
    time. (PostgreSQL; on SQLite the IMMEDIATE transaction already serializes writers and
    select_for_update is a no-op.)"""
    Batch.objects.select_for_update().filter(pk=batch.pk).first()


def _assign(
    unit: Unit,
    annotator: Annotator,
    lead: Sequence[int] = (),
    *,
    batch: Batch,
    channel_assignment_id: str = "",
    unconfirmed: str = "",
) -> Assignment:
    """A new assignment of the unit with its empty responses; `lead` item ids come first.
    `unconfirmed`: why the site has not confirmed the ids yet (empty: confirmed)."""
    item_ids = [*lead, *unit_item_ids(unit)]
    training = training_to_give(annotator=annotator, batch=batch)
    checks = checks_to_mix(annotator=annotator, batch=batch, items=len(item_ids), besides=training)
    item_ids = [*training, *mixed_in(item_ids, checks)]  # practice first, with feedback, never counted
    assignment = Assignment.objects.create(
        unit=unit,
        annotator=annotator,
        channel_assignment_id=channel_assignment_id,
        item_count=len(item_ids),
        study_hold=study_holds(annotator=annotator, batch=batch),
        confirmed=not unconfirmed,
        unconfirmed_reason=unconfirmed[:300],
    )
    Response.objects.bulk_create(
        Response(assignment=assignment, item_id=item_id, position=position, training=item_id in training)
        for position, item_id in enumerate(item_ids)
    )
    return assignment


def assignment_reclaim(*, assignment: Assignment) -> bool:
    """Give a released assignment back to its annotator if its slot is still free."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=assignment.unit.batch_id)
        fresh = Assignment.objects.select_for_update().select_related("unit").get(pk=assignment.pk)
        if fresh.status != Assignment.Status.RELEASED:
            return fresh.status == Assignment.Status.ACTIVE
        holds = Assignment.objects.filter(unit_id=fresh.unit_id, status__in=Assignment.HOLDING).count()
        if holds >= batch.slots_per_unit and not fresh.unit.every_annotator:
            return False
        Assignment.objects.filter(pk=fresh.pk).update(status=Assignment.Status.ACTIVE, last_activity_at=timezone.now())
        assignment.status = Assignment.Status.ACTIVE
        return True


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


def assignment_open_for_channel(
    *, unit: Unit, annotator: Annotator, channel_assignment_id: str, unconfirmed: str = ""
) -> Assignment:
    """The assignment of a unit the channel handed out itself (an accepted MTurk HIT), bound to
    the channel's own assignment id.

    Work is reachable only through the id it was opened under: opening the same id again (a
    reload) gives back the same assignment; another id for the same person and unit (a HIT
    returned and accepted again, or somebody who knows the person's id and forges one) starts a
    separate assignment with its own answers and never touches the first. The channel decides
    who takes a slot; we still keep our own rules: nobody gets an item they had under another
    unit, nor (exclusive groups) a second item of a group, and the batch's consistency set comes
    first, inside the annotator's first unit.

    ``unconfirmed``: why the site has not confirmed the ids yet (empty: it has, at this entry);
    such work is held apart (``Assignment.confirmed``) until sync confirms it.
    """
    if not channel_assignment_id:
        raise EntryRefused(_("This page must be opened from the task on the recruiting site."))
    with transaction.atomic():
        _lock(unit.batch)
        existing = Assignment.objects.filter(
            unit=unit, annotator=annotator, channel_assignment_id=channel_assignment_id
        ).first()
        if existing is not None:
            if existing.status == Assignment.Status.RELEASED:
                Assignment.objects.filter(pk=existing.pk).update(
                    status=Assignment.Status.ACTIVE, last_activity_at=timezone.now()
                )
                existing.refresh_from_db()
            if not unconfirmed and not existing.confirmed:  # the site confirmed it at this entry
                Assignment.objects.filter(pk=existing.pk).update(confirmed=True, unconfirmed_reason="")
                existing.confirmed, existing.unconfirmed_reason = True, ""
            return existing
        own_unit = Assignment.objects.filter(unit=unit, annotator=annotator).exists()
        exclusive = kind_of(annotator.project).exclusive_groups
        seen_elsewhere = Unit.objects.filter(pk=unit.pk).filter(units_seen_by(annotator, exclusive_groups=exclusive))
        if not own_unit and seen_elsewhere.exists():
            raise EntryRefused(
                _(
                    "You have already worked on these items, or on items that must go to other people "
                    "(for example the other context of a word pair). Please return this task."
                )
            )
        lead = [] if unit.every_annotator else _consistency_lead(unit.batch, annotator)
        return _assign(
            unit,
            annotator,
            lead,
            batch=unit.batch,
            channel_assignment_id=channel_assignment_id,
            unconfirmed=unconfirmed,
        )


def assignment_open_for_session(
    *, batch: Batch, annotator: Annotator, channel_assignment_id: str, unconfirmed: str = ""
) -> Assignment:
    """The assignment a recruiting site's session (a Prolific SESSION_ID) opens in a batch whose
    posting is the whole batch (one study): the one bound to this id, or a new one on the next
    unit with a free slot, bound to it.

    As with ``assignment_open_for_channel``, work is reachable only through the id it was opened
    under: another id for the same person (a second submission, or a forged one) starts separate
    work and never reaches the first. Raises NoWorkLeft when no unit is left for this person.
    """
    if not channel_assignment_id:
        raise EntryRefused(_("This page must be opened from the study on the recruiting site."))
    assignments_release_abandoned(batch=batch)  # places held by abandoned or unconfirmed work reopen
    with transaction.atomic():
        _lock(batch)
        existing = (
            Assignment.objects.filter(
                unit__batch=batch, annotator=annotator, channel_assignment_id=channel_assignment_id
            )
            .select_related("unit")
            .first()
        )
        if existing is not None:
            return assignment_open_for_channel(
                unit=existing.unit,
                annotator=annotator,
                channel_assignment_id=channel_assignment_id,
                unconfirmed=unconfirmed,
            )
        if batch.status != Batch.Status.OPEN:
            raise NoWorkLeft(_("This batch is closed."))
        unit = next_posted_unit(batch, annotator, exclusive_groups=kind_of(annotator.project).exclusive_groups)
        if unit is None:
            raise NoWorkLeft(_("There is no more work for you in this batch. Thank you!"))
        return assignment_open_for_channel(
            unit=unit, annotator=annotator, channel_assignment_id=channel_assignment_id, unconfirmed=unconfirmed
        )


def annotator_for_channel(*, project, channel: str, external_id: str, batch: Batch | None = None) -> Annotator:
    """The project's annotator known to a channel by its own id (an MTurk workerId): one per person."""
    annotator, _created = Annotator.objects.get_or_create(
        project=project, channel=channel, external_id=external_id, defaults={"batch": batch}
    )
    return annotator
