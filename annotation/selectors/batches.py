"""Reads of batches: progress counts for the admin and the API, the units a recruiting site
posts, invite addresses and what adaptive redundancy saved."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum
from django.urls import reverse

from annotation.models import Assignment, Batch, ItemEstimate, ModelEstimate, Response, Unit


def batch_progress(batch: Batch) -> dict[str, int]:
    """Slots filled, submitted and in progress, for the admin and the API (the consistency
    unit, done by everyone, has no slots and is not counted)."""
    units = batch.units.filter(every_annotator=False).count()
    by_status = dict(
        Assignment.objects.filter(unit__batch=batch, unit__every_annotator=False)
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {
        "units": units,
        "slots": units * batch.assignments_per_unit,
        "active": by_status.get(Assignment.Status.ACTIVE, 0),
        "submitted": by_status.get(Assignment.Status.SUBMITTED, 0)
        + by_status.get(Assignment.Status.APPROVED, 0)
        + by_status.get(Assignment.Status.REJECTED, 0),
        "released": by_status.get(Assignment.Status.RELEASED, 0),
    }


def batches_with_progress(queryset: QuerySet | None = None) -> QuerySet:
    """Batches annotated with `batch_progress`'s counts: one query however many batches a
    list shows (admin changelist, API list)."""
    qs = Batch.objects.all() if queryset is None else queryset
    done = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)

    def count(*statuses: str) -> Count:
        return Count(
            "units__assignments",
            filter=Q(units__assignments__status__in=statuses, units__every_annotator=False),
            distinct=True,
        )

    return qs.annotate(
        progress_units=Count("units", filter=Q(units__every_annotator=False), distinct=True),
        progress_active=count(Assignment.Status.ACTIVE),
        progress_submitted=count(*done),
        progress_released=count(Assignment.Status.RELEASED),
    )


def progress_of(batch: Batch) -> dict[str, int]:
    """`batch_progress` read from `batches_with_progress` annotations when present."""
    if not hasattr(batch, "progress_units"):
        return batch_progress(batch)
    counted = {name: getattr(batch, f"progress_{name}") for name in ("units", "active", "submitted", "released")}
    return {
        "units": counted["units"],
        "slots": counted["units"] * batch.assignments_per_unit,
        "active": counted["active"],
        "submitted": counted["submitted"],
        "released": counted["released"],
    }


def invite_url(token: str, *, base_url: str) -> str:
    """The absolute address an invited annotator opens (the surveys app's entry page)."""
    return base_url.rstrip("/") + reverse("surveys:invite", args=[token])


def publishable_units(batch: Batch) -> QuerySet[Unit]:
    """The units a recruiting site gets a posting for: all but the every-annotator (consistency)
    unit, whose items lead each participant's first posting of the batch instead
    (`services.assignments.assignment_open_for_channel`)."""
    return batch.units.filter(every_annotator=False)


def labels_saved(batch: Batch) -> dict[str, int]:
    """Labels given so far against what fixed redundancy (`assignments_per_unit` labels an item)
    would have cost. `saved_on_settled`: on the items settled so far, fixed redundancy's labels
    less those they took (negative when hard items took more than the fixed number)."""
    given = Response.objects.filter(
        assignment__unit__batch=batch,
        assignment__status__in=Assignment.COUNTED,
        completed_at__isnull=False,
        training=False,
    ).count()
    done = ItemEstimate.objects.filter(batch=batch, settled=True).aggregate(n=Count("pk"), labels=Sum("labels"))
    items = Unit.objects.filter(batch=batch, every_annotator=False).aggregate(n=Count("unit_items"))["n"]
    fixed = batch.assignments_per_unit
    return {
        "labels_given": given,
        "fixed_labels": items * fixed,
        "items_settled": done["n"],
        "saved_on_settled": done["n"] * fixed - (done["labels"] or 0),
    }


def model_estimate(batch: Batch) -> ModelEstimate | None:
    """The competence adaptive redundancy estimated for the batch's model, if it votes."""
    return ModelEstimate.objects.filter(batch=batch).first()
