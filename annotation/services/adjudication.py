"""The adjudication stage, for any kind: when an item's first two annotations in a batch are
complete, they are compared field by field (the kind says which fields and how they compare);
agreed fields get their final label at once, the others go to one adjudication task for a third
person, whose decision gives their final labels:

- the two agree: the agreed label (`agreed`);
- else the adjudicator's label (`adjudicated`): one of the two, or their own value (it parsed as
  a value of the field, so it is their decision; its reason says neither annotator gave it);
- a field the adjudicator gave no value stays `unresolved`, with its reason, and is left out of
  the cleaned exports.

Everything here is idempotent and safe to repeat: a task per (item, batch) and a final label per
(item, batch, field) are unique, and a decision is a compare-and-set on the task's status.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.kinds import TaskKind, kind_of
from annotation.models import (
    AdjudicationSetup,
    AdjudicationTask,
    Annotator,
    Assignment,
    Batch,
    FinalLabel,
    Item,
    Response,
    Role,
)

MAX_CLAIMS = 5
#: the reason of an adjudicated final label that is the adjudicator's own value
OWN_VALUE = "the adjudicator's own value, given by neither annotator"


class AdjudicationRefused(Exception):
    """The adjudicator may not decide this (one of its annotators, another batch's, decided)."""


def adjudication_setup_set(*, batch: Batch, enabled: bool = True, users: Iterable[Any] = ()) -> AdjudicationSetup:
    """Switch the batch's adjudication stage on or off; `users`: named logins that may adjudicate."""
    setup, _created = AdjudicationSetup.objects.update_or_create(batch=batch, defaults={"enabled": enabled})
    setup.users.set(list(users))
    return setup


def adjudicator_for_user(*, batch: Batch, user: Any) -> Annotator:
    """The adjudicator record of a named login of the batch's stage (made at the first visit).
    Raises AdjudicationRefused for a login the batch does not name."""
    if not AdjudicationSetup.objects.filter(batch=batch, enabled=True, users=user).exists():
        raise AdjudicationRefused(_("You are not an adjudicator of this batch."))
    annotator, _created = Annotator.objects.get_or_create(
        project_id=batch.project_id,
        channel="login",
        external_id=f"user-{user.pk}-batch-{batch.pk}",
        defaults={"user": user, "batch": batch, "role": Role.ADJUDICATOR},
    )
    return annotator


def _stage_on(assignment_id: int) -> bool:
    return AdjudicationSetup.objects.filter(batch__units__assignments=assignment_id, enabled=True).exists()


def adjudication_check_on_commit(response_ids: Iterable[int]) -> None:
    """Check each response's item once the current transaction commits (a Celery task)."""
    from annotation import tasks

    for response_id in response_ids:
        transaction.on_commit(partial(tasks.open_adjudication.delay, response_id), robust=True)


def adjudication_queue_confirmed(*, assignment_id: int) -> None:
    """After sync confirmed an assignment's work: check each item it completed again, since its
    annotations now count among the first two (one look at the stage for the assignment)."""
    if _stage_on(assignment_id):
        done = Response.objects.filter(
            assignment_id=assignment_id, completed_at__isnull=False, item__check_answer__isnull=True
        )
        adjudication_check_on_commit(list(done.values_list("pk", flat=True)))


def first_two(item: Item, batch: Batch) -> list[Response]:
    """The item's first two completed annotations in the batch, in order of completion; work the
    recruiting site has not confirmed yet is not among them (sync queues the check again when it
    confirms it: `adjudication_queue_confirmed`)."""
    return list(
        Response.objects.filter(
            item=item,
            assignment__unit__batch=batch,
            completed_at__isnull=False,
            assignment__status__in=Assignment.COUNTED,
            assignment__confirmed=True,
        )
        .select_related("assignment")
        .order_by("completed_at", "id")[:2]
    )


def adjudication_open_for_item(*, item: Item, batch: Batch) -> AdjudicationTask | None:
    """Compare the item's first two annotations when both are complete and the batch's stage is
    on: agreed fields get their final label, the others one adjudication task (returned; None
    when there is nothing to decide). Safe to call any number of times, concurrently too."""
    if not AdjudicationSetup.objects.filter(batch=batch, enabled=True).exists():
        return None
    existing = AdjudicationTask.objects.filter(item=item, batch=batch).first()
    if existing is not None or FinalLabel.objects.filter(item=item, batch=batch).exists():
        return existing
    pair = first_two(item, batch)
    if len(pair) < 2:
        return None
    kind = kind_of(item.project)
    first, second = (kind.adjudication_fields(item.payload, r.answers) for r in pair)
    disputed = [f for f in first if not kind.same(f, first[f], second.get(f))]
    task = None
    with transaction.atomic():
        if disputed:
            try:
                with transaction.atomic():
                    task = AdjudicationTask.objects.create(
                        item=item,
                        batch=batch,
                        first_response=pair[0],
                        second_response=pair[1],
                        fields_in_dispute=disputed,
                    )
            except IntegrityError:  # another check of the same item got there first
                return AdjudicationTask.objects.get(item=item, batch=batch)
        agreed = [
            FinalLabel(item=item, batch=batch, field=f, value=first[f], how=FinalLabel.How.AGREED)
            for f in first
            if f not in disputed
        ]
        FinalLabel.objects.bulk_create(agreed, ignore_conflicts=True)
    return task


def adjudicator_refusal(task: AdjudicationTask, adjudicator: Annotator) -> str | None:
    """Why `adjudicator` may not decide `task` (None: they may): they must adjudicate its batch
    and be a third person, neither annotator (as an annotator record or a login)."""
    if adjudicator.role != Role.ADJUDICATOR or adjudicator.batch_id != task.batch_id:
        return _("You are not an adjudicator of this batch.")
    people = Annotator.objects.filter(assignments__responses__in=[task.first_response_id, task.second_response_id])
    if people.filter(Q(pk=adjudicator.pk) | Q(user__isnull=False, user_id=adjudicator.user_id)).exists():
        return _("You annotated this item, so its disagreements go to somebody else.")
    return None


def adjudication_task_next(*, adjudicator: Annotator) -> AdjudicationTask | None:
    """The open task this adjudicator holds, else the oldest unclaimed one of their batch that
    they may decide, claimed for them (compare-and-set: two adjudicators never share one)."""
    mine = AdjudicationTask.objects.filter(adjudicator=adjudicator, status=AdjudicationTask.Status.OPEN).first()
    if mine is not None:  # back at it: the claim is fresh again
        AdjudicationTask.objects.filter(pk=mine.pk, adjudicator=adjudicator).update(claimed_at=timezone.now())
        return mine
    if adjudicator.batch_id is None:  # not (yet) given a batch: nothing to claim
        return None
    skipped: list[int] = []
    lost = 0
    while lost < MAX_CLAIMS:
        candidate = (
            AdjudicationTask.objects.filter(
                batch_id=adjudicator.batch_id, adjudicator__isnull=True, status=AdjudicationTask.Status.OPEN
            )
            .exclude(pk__in=skipped)
            .order_by("id")
            .first()
        )
        if candidate is None:
            return None
        if adjudicator_refusal(candidate, adjudicator) is not None:
            skipped.append(candidate.pk)
            continue
        now = timezone.now()
        if AdjudicationTask.objects.filter(pk=candidate.pk, adjudicator__isnull=True).update(
            adjudicator=adjudicator, claimed_at=now
        ):
            candidate.adjudicator, candidate.claimed_at = adjudicator, now
            return candidate
        lost += 1  # another adjudicator claimed it between the read and the write
    return None


def adjudication_tasks_release_idle(*, batch: Batch | None = None, now: datetime | None = None) -> int:
    """Open tasks whose adjudicator took them up longer ago than the batch's
    `release_after_minutes` go back to the queue (an adjudicator who left holds nothing).
    Running it twice releases nothing more."""
    now = now or timezone.now()
    batches = [batch] if batch is not None else Batch.objects.filter(status=Batch.Status.OPEN)
    return sum(
        AdjudicationTask.objects.filter(
            Q(claimed_at__lt=now - timedelta(minutes=b.release_after_minutes)) | Q(claimed_at__isnull=True),
            batch=b,
            status=AdjudicationTask.Status.OPEN,
            adjudicator__isnull=False,
        ).update(adjudicator=None, claimed_at=None)
        for b in batches
    )


def adjudication_decide(*, task: AdjudicationTask, adjudicator: Annotator, values: Mapping[str, Any]) -> bool:
    """Record the adjudicator's value of every disputed field and the fields' final labels.
    Whether anything changed: the same decision again (a double submit, a reload) changes
    nothing. Raises AdjudicationRefused for somebody who may not decide it, a value missing, or
    a task already decided otherwise."""
    refusal = adjudicator_refusal(task, adjudicator)
    if refusal:
        raise AdjudicationRefused(refusal)
    if set(values) != set(task.fields_in_dispute):
        raise AdjudicationRefused(_("Give a final value for every field in dispute."))
    values = dict(values)
    with transaction.atomic():
        written = AdjudicationTask.objects.filter(
            Q(adjudicator__isnull=True) | Q(adjudicator=adjudicator),
            pk=task.pk,
            status=AdjudicationTask.Status.OPEN,
        ).update(
            status=AdjudicationTask.Status.DECIDED, answers=values, adjudicator=adjudicator, decided_at=timezone.now()
        )
        if not written:
            task.refresh_from_db()
            if task.adjudicator_id == adjudicator.pk and task.answers == values:
                return False
            raise AdjudicationRefused(_("This item has already been decided."))
        FinalLabel.objects.bulk_create(final_labels(task, adjudicator, values))
    return True


def final_labels(task: AdjudicationTask, adjudicator: Annotator, values: Mapping[str, Any]) -> list[FinalLabel]:
    """The disputed fields' final labels: the adjudicator's value, one of the two annotations or
    their own (it parsed as a value of the field, so it is their decision: the reason says it
    was neither annotator's); a field given no value (None) stays unresolved."""
    item = task.item
    kind: TaskKind = kind_of(item.project)
    first, second = (
        kind.adjudication_fields(item.payload, r.answers) for r in (task.first_response, task.second_response)
    )
    labels = []
    for field in task.fields_in_dispute:
        value = values[field]
        common = dict(item=item, batch_id=task.batch_id, field=field, decided_by=adjudicator)
        if value is None:
            reason = "the adjudicator gave no value"
            labels.append(FinalLabel(**common, value=None, how=FinalLabel.How.UNRESOLVED, reason=reason))
        elif kind.same(field, value, first.get(field)) or kind.same(field, value, second.get(field)):
            labels.append(FinalLabel(**common, value=value, how=FinalLabel.How.ADJUDICATED))
        else:
            reason = own_value_reason(kind, field, first.get(field), second.get(field))
            labels.append(FinalLabel(**common, value=value, how=FinalLabel.How.ADJUDICATED, reason=reason))
    return labels


def own_value_reason(kind: TaskKind, field: str, first: Any, second: Any) -> str:
    """The reason of an adjudicator's own value: neither annotator gave it, and what they gave, as
    the pages and the final-labels export show values (`TaskKind.final_export_value`: a kind's
    sentences numbered from 1)."""
    shown = [None if value is None else kind.final_export_value(field, value) for value in (first, second)]
    return OWN_VALUE + f" (the annotations: {shown[0]!r}, {shown[1]!r})"
