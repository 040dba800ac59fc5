"""Making batches of a project's items and the links that hand them out."""
from __future__ import annotations

from typing import Iterable

from django.db import transaction

from annotation.channels import get_channel
from annotation.models import Batch, InviteLink, Item, Project, Unit, UnitItem


class BatchError(ValueError):
    pass


def batch_create(
    *,
    project: Project,
    name: str,
    items: Iterable[Item] | None = None,
    items_per_unit: int = 5,
    assignments_per_unit: int = 3,
    channel: str = "invite",
    release_after_minutes: int = 60,
    channel_settings: dict | None = None,
) -> Batch:
    """Split the items (default: all of the project's) into units of `items_per_unit`, in order.

    Each unit is then handed to `assignments_per_unit` distinct annotators.
    """
    get_channel(channel)  # unknown channel: fail before writing
    if items_per_unit < 1 or assignments_per_unit < 1:
        raise BatchError("items per unit and annotators per item must both be at least 1")
    item_ids = [i.pk for i in items] if items is not None else list(
        Item.objects.filter(project=project).order_by("id").values_list("id", flat=True)
    )
    if not item_ids:
        raise BatchError("the batch has no items: import items into the project first")
    if Item.objects.filter(pk__in=item_ids).exclude(project=project).exists():
        raise BatchError("every item of a batch must belong to the batch's project")
    with transaction.atomic():
        batch = Batch.objects.create(
            project=project,
            name=name,
            channel=channel,
            items_per_unit=items_per_unit,
            assignments_per_unit=assignments_per_unit,
            release_after_minutes=release_after_minutes,
            channel_settings=channel_settings or {},
        )
        chunks = [item_ids[i : i + items_per_unit] for i in range(0, len(item_ids), items_per_unit)]
        units = Unit.objects.bulk_create([Unit(batch=batch, position=n) for n in range(len(chunks))])
        UnitItem.objects.bulk_create(
            [
                UnitItem(unit=unit, item_id=item_id, position=p)
                for unit, chunk in zip(units, chunks)
                for p, item_id in enumerate(chunk)
            ],
            batch_size=2000,
        )
    return batch


def invite_link_create(*, batch: Batch, label: str = "", max_annotators: int | None = None) -> InviteLink:
    return InviteLink.objects.create(batch=batch, label=label, max_annotators=max_annotators)
