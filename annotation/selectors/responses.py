"""Reads of the saved responses, flattened to rows: the raw and clean exports, quality runs'
frames and the adaptive estimates read them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Q, QuerySet

from annotation.kinds import kind_of
from annotation.kinds.typed import usable_seconds
from annotation.models import Assignment, Item, Project, Response

BASE_ANNOTATION_COLUMNS = [
    "response_id",
    "item_id",
    "external_id",
    "annotator_id",
    "annotator",
    "channel",
    "batch_id",
    "unit_id",
    "assignment_id",
    "assignment_status",
    "completed",
    "completed_at",
    "seconds",
]
_RESPONSE_FIELDS = (
    "id",
    "item_id",
    "item__external_id",
    "assignment__annotator_id",
    "assignment__annotator__external_id",
    "assignment__annotator__channel",
    "assignment__unit__batch_id",
    "assignment__unit_id",
    "assignment_id",
    "assignment__status",
    "assignment__confirmed",
    "completed_at",
    "answers",
    "timings",
)


def annotation_columns(
    project: Project,
    *,
    item_text: bool = False,
    keep_unconfirmed: bool = False,
    page_seconds: bool = False,
    suggestions: bool = False,
) -> list[str]:
    """The columns of `annotation_rows`: the base ones (with `keep_unconfirmed`, `confirmed` after
    the assignment's status; with `page_seconds`, `page_seconds` after `seconds`), the kind's, then
    (with `suggestions`) the model's suggestions shown (`suggestion_columns`), then (with
    `item_text`) the item's text columns."""
    kind = kind_of(project)
    text = [column.name for column in kind.item_text_columns] if item_text else []
    base = list(BASE_ANNOTATION_COLUMNS)
    if keep_unconfirmed:
        base.insert(base.index("assignment_status") + 1, "confirmed")
    if page_seconds:
        base.insert(base.index("seconds") + 1, "page_seconds")
    shown = suggestion_columns(project) if suggestions else []
    return base + kind.annotation_columns() + shown + text


#: the model named by the suggestions shown with a response (several joined by ", ")
SUGGESTION_MODEL = "suggestion_model"


def suggestion_columns(project: Project) -> list[str]:
    """`suggestion_model`, then per label field the model's label shown (`<field>_suggested`) and
    whether the answer kept it (`<field>_kept`; empty: no suggestion was shown)."""
    fields = [f.name for f in kind_of(project).label_fields()]
    return [SUGGESTION_MODEL, *(f"{name}_{part}" for name in fields for part in ("suggested", "kept"))]


def suggestion_row(record: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    """A response's `suggestions` ({page: {field: {model, value, kept}}}) as `suggestion_columns`."""
    row: dict[str, Any] = dict.fromkeys(columns)
    models = []
    for shown in record.values():
        for field, entry in shown.items():
            row[f"{field}_suggested"], row[f"{field}_kept"] = entry.get("value"), entry.get("kept")
            models.append(entry.get("model") or "")
    row[SUGGESTION_MODEL] = ", ".join(dict.fromkeys(models)) or None
    return row


def has_suggestions(project: Project) -> bool:
    """Whether an answer of the project was saved with a model's suggestion shown (its exports and
    quality runs then carry `suggestion_columns`)."""
    return Response.objects.filter(item__project=project).exclude(suggestions={}).exists()


def ended_by_study_unanswered() -> Q:
    """Responses (unanswered) of work the study ended: the assignment was held by the study's
    steps or live quality (`study_hold`) and released, so its place went to somebody else."""
    return Q(completed_at__isnull=True, assignment__study_hold=True, assignment__status=Assignment.Status.RELEASED)


def annotation_rows(
    project: Project,
    *,
    response_ids: QuerySet | None = None,
    chunk_size: int = 2000,
    item_text: bool = False,
    keep_unconfirmed: bool = False,
    page_seconds: bool = False,
    suggestions: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every response of the project (or those of `response_ids`) flattened to
    `annotation_columns(project)`, in id order, streamed `chunk_size` rows at a time.

    Items nobody answered of work the study ended (held by a step before it, or stopped by live
    quality, then released: `ended_by_study_unanswered`) are no annotations: such a person is
    listed under the study steps, not as an annotator with empty rows.

    Work a recruiting site has not confirmed (`Assignment.confirmed`) never counts for or
    against anybody, so it is left out; `keep_unconfirmed` (the raw export) keeps it, each row
    marked in a `confirmed` column. `page_seconds`: each row's seconds per page ({page: seconds},
    None when no page was timed) in a `page_seconds` column. `suggestions`: the model's suggestions
    shown with each answer and whether it kept them (`suggestion_columns`).

    One query; of each item's payload only the keys the kind's columns read. The filter is a
    subquery of the project's item ids, not a join on item__project: SQLite would sort the whole
    join before the first row. On PostgreSQL outside a transaction Django's iterator declares
    its cursor WITH HOLD (the result is built on the server first): memory here stays flat, and
    the caller may commit (an export job's progress) while it reads.
    """
    kind = kind_of(project)
    keys = kind.payload_keys(item_text=item_text)
    payload_fields = ("item__payload",) if keys is None else tuple(f"item__payload__{key}" for key in keys)
    queryset = Response.objects.filter(item_id__in=Item.objects.data().filter(project=project).values("id"))
    if response_ids is not None:
        queryset = queryset.filter(pk__in=response_ids)
    if not keep_unconfirmed:
        queryset = queryset.filter(assignment__confirmed=True)
    queryset = queryset.exclude(ended_by_study_unanswered())
    shown = suggestion_columns(project) if suggestions else []
    values = queryset.order_by("id").values_list(*_RESPONSE_FIELDS, "suggestions", *payload_fields)
    width = len(_RESPONSE_FIELDS) + 1
    for row in values.iterator(chunk_size=chunk_size):
        if keys is None:
            payload = row[width]
        else:  # a missing key and a null read alike: left out
            payload = {key: value for key, value in zip(keys, row[width:]) if value is not None}
        (
            rid,
            item_id,
            ext,
            aid,
            aext,
            channel,
            batch_id,
            unit_id,
            asg_id,
            status,
            confirmed,
            done_at,
            answers,
            timings,
            suggested,
        ) = row[:width]
        flat = {
            "response_id": rid,
            "item_id": item_id,
            "external_id": ext,
            "annotator_id": aid,
            "annotator": aext,
            "channel": channel,
            "batch_id": batch_id,
            "unit_id": unit_id,
            "assignment_id": asg_id,
            "assignment_status": status,
        }
        if keep_unconfirmed:
            flat["confirmed"] = confirmed
        flat["completed"] = done_at is not None
        flat["completed_at"] = done_at.isoformat() if done_at else None
        flat["seconds"] = total_seconds(timings)
        if page_seconds:
            flat["page_seconds"] = seconds_by_page(timings)
        flat.update(kind.annotation_row(payload, answers))
        if shown:
            flat.update(suggestion_row(suggested, shown))
        if item_text:
            flat.update(kind.item_text_row(payload))
        yield flat


def total_seconds(timings: dict[str, Any]) -> float | None:
    """Seconds over the pages timed ({page: {..., "seconds": s}}), to the millisecond."""
    seconds = [s for page in timings.values() if (s := usable_seconds(page.get("seconds"))) is not None]
    return round(sum(seconds), 3) if seconds else None


def seconds_by_page(timings: dict[str, Any]) -> dict[str, float] | None:
    """{page: seconds} of the pages timed, in the order they were first saved (None: none timed).
    A time no run can use (stored before the import checked it: see `usable_seconds`) is unknown."""
    found = {page: s for page, value in timings.items() if (s := usable_seconds(value.get("seconds"))) is not None}
    return found or None
