"""Read queries shared by views, admin, API, quality runs and exports."""
from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.urls import reverse

from annotation.kinds import get_kind
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response

BASE_ANNOTATION_COLUMNS = [
    "response_id", "item_id", "external_id", "annotator_id", "annotator", "channel",
    "batch_id", "unit_id", "assignment_id", "assignment_status", "completed", "completed_at", "seconds",
]


def annotator_by_key(key: str) -> Annotator | None:
    try:
        return Annotator.objects.select_related("project", "batch").get(access_key=key)
    except Annotator.DoesNotExist:
        return None


def unit_state(assignment: Assignment) -> tuple[Response | None, int, int]:
    """The first item not completed yet (with its item), and how many of the unit's are done.

    One query for the annotator's hot page: a unit holds a handful of items.
    """
    responses = list(Response.objects.select_related("item").filter(assignment=assignment).order_by("position"))
    done = sum(1 for r in responses if r.completed_at is not None)
    current = next((r for r in responses if r.completed_at is None), None)
    return current, done, len(responses)


def response_of_annotator(response_id: int, annotator: Annotator) -> Response | None:
    """A response only if it belongs to this annotator: nobody reads another's work."""
    return (
        Response.objects.select_related("item", "assignment")
        .filter(pk=response_id, assignment__annotator=annotator)
        .first()
    )


def annotation_columns(project: Project) -> list[str]:
    return BASE_ANNOTATION_COLUMNS + get_kind(project.kind).annotation_columns()


def annotation_rows(
    project: Project, *, response_ids: QuerySet | None = None, chunk_size: int = 2000
) -> Iterator[dict[str, Any]]:
    """Every response of the project flattened to `annotation_columns(project)`, streamed.

    Hot path of exports and quality runs: only the payload keys the kind's row needs are
    read (not the passage), and answers/timings are fetched as text and decoded once.
    """
    kind = get_kind(project.kind)
    # A subquery, not a join on item__project: SQLite would sort the whole join before the
    # first row (measured: 172 s to first byte at 1M rows, 3 s with the subquery).
    qs = Response.objects.filter(item_id__in=Item.objects.filter(project=project).values("id"))
    if response_ids is not None:
        qs = qs.filter(pk__in=response_ids)
    keys = kind.row_payload_keys
    payload_fields = ["item__payload"] if keys is None else [f"item__payload__{key}" for key in keys]
    qs = qs.annotate(_answers=Cast("answers", TextField()), _timings=Cast("timings", TextField()))
    fields = (
        "id", "item_id", "item__external_id", "assignment__annotator_id",
        "assignment__annotator__external_id", "assignment__annotator__channel", "assignment__unit__batch_id",
        "assignment__unit_id", "assignment_id", "assignment__status", "completed_at", "_answers", "_timings",
        *payload_fields,
    )
    loads, row_of, width = json.loads, kind.annotation_row, len(fields) - len(payload_fields)
    with _streaming_read():
        yield from _rows(qs.order_by("id").values_list(*fields).iterator(chunk_size=chunk_size),
                         keys, width, loads, row_of)


@contextmanager
def _streaming_read() -> Iterator[None]:
    """On PostgreSQL a server-side cursor outside a transaction is declared WITH HOLD and the
    whole result is built before the first row; inside one, rows stream. SQLite's transactions
    take the write lock (IMMEDIATE), so there the read runs in autocommit."""
    if connection.vendor == "postgresql" and connection.get_autocommit():
        with transaction.atomic():
            yield
    else:
        yield


def _rows(values_iter, keys, width, loads, row_of) -> Iterator[dict[str, Any]]:
    for values in values_iter:
        (rid, item_id, ext, aid, aext, channel, batch_id, unit_id, asg_id, status, done_at,
         answers, timings) = values[:width]
        if keys is None:
            payload = values[width]
        else:
            payload = {key: value for key, value in zip(keys, values[width:]) if value is not None}
        row = {
            "response_id": rid, "item_id": item_id, "external_id": ext, "annotator_id": aid,
            "annotator": aext, "channel": channel, "batch_id": batch_id, "unit_id": unit_id,
            "assignment_id": asg_id, "assignment_status": status, "completed": done_at is not None,
            "completed_at": done_at.isoformat() if done_at else None,
            "seconds": _total_seconds(loads(timings)),
        }
        row.update(row_of(payload, loads(answers)))
        yield row


def _total_seconds(timings: dict[str, Any]) -> float | None:
    seconds = [t["seconds"] for t in timings.values() if t.get("seconds") is not None]
    return round(sum(seconds), 3) if seconds else None


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
    return {
        "units": batch.progress_units,
        "slots": batch.progress_units * batch.assignments_per_unit,
        "active": batch.progress_active,
        "submitted": batch.progress_submitted,
        "released": batch.progress_released,
    }


def invite_url(token: str, *, base_url: str) -> str:
    """The absolute address an invited annotator opens (the surveys app's entry page)."""
    return base_url.rstrip("/") + reverse("surveys:invite", args=[token])
