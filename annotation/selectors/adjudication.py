"""Reads of the adjudication stage: what an adjudicator's page shows, the counts a quality run
reports, and the rows of the final-label exports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.db.models import Count, Q

from annotation.channels import annotator_origins
from annotation.kinds import ValueFormat, kind_of
from annotation.models import AdjudicationSetup, AdjudicationTask, Annotator, FinalLabel, Item, Project, Response, Role
from annotation.naming import annotator_name


@dataclass(frozen=True)
class DisputedField:
    """One field in dispute as the adjudicator's page shows it: both annotators' values."""

    name: str
    title: str
    first: Any
    second: Any
    first_text: str
    second_text: str
    #: how the adjudicator types an own value
    format: ValueFormat


@dataclass(frozen=True)
class Side:
    """One of a task's two annotations as the page numbers it (Annotator 1 or 2) and who made it."""

    response: Response
    name: str


def project_adjudicates(project: Project) -> bool:
    """Whether the project can have final labels: a batch with the adjudication stage on, or
    adjudication tasks or final labels from one that had it."""
    return (
        AdjudicationSetup.objects.filter(batch__project=project, enabled=True).exists()
        or AdjudicationTask.objects.filter(batch__project=project).exists()
        or FinalLabel.objects.filter(item__project=project).exists()
    )


def adjudicator_by_key(key: str) -> Annotator | None:
    """The adjudicator behind an access key, with project and batch (None: no such adjudicator)."""
    return Annotator.objects.select_related("project", "batch").filter(access_key=key, role=Role.ADJUDICATOR).first()


def task_for_decision(task_id: int, adjudicator: Annotator) -> AdjudicationTask | None:
    """A task of the adjudicator's batch with what deciding it reads."""
    if adjudicator.batch_id is None:  # not (yet) given a batch: no task is theirs
        return None
    return (
        AdjudicationTask.objects.select_related(
            "item__project", "first_response__assignment__annotator", "second_response__assignment__annotator"
        )
        .filter(pk=task_id, batch_id=adjudicator.batch_id)
        .first()
    )


def task_sides(task: AdjudicationTask) -> tuple[Side, Side]:
    """The task's two annotations in a stable order, the same on every visit and for every
    adjudicator whoever finished first: by the annotator's origin (their invite link, their
    channel), then by who joined first; each named by that origin and the annotator's number."""
    responses = [task.first_response, task.second_response]
    origins = annotator_origins(r.assignment.annotator for r in responses)
    first, second = sorted(responses, key=lambda r: origins[r.assignment.annotator_id].rank)
    return tuple(  # type: ignore[return-value]
        Side(r, f"{annotator_name(r.assignment.annotator_id)} · {origins[r.assignment.annotator_id].name}")
        for r in (first, second)
    )


def disputed_fields(task: AdjudicationTask, sides: tuple[Side, Side] | None = None) -> list[DisputedField]:
    """The task's disputed fields, both annotations of each side by side (and nothing else), in
    the order of `sides` (default: `task_sides`)."""
    item = task.item
    kind = kind_of(item.project)
    first_side, second_side = sides or task_sides(task)
    first = kind.adjudication_fields(item.payload, first_side.response.answers)
    second = kind.adjudication_fields(item.payload, second_side.response.answers)
    return [
        DisputedField(
            name,
            kind.adjudication_title(name),
            first.get(name),
            second.get(name),
            kind.adjudication_display(item.payload, name, first.get(name)),
            kind.adjudication_display(item.payload, name, second.get(name)),
            kind.adjudication_format(item.payload, name),
        )
        for name in task.fields_in_dispute
    ]


def tasks_waiting(task: AdjudicationTask) -> int:
    """How many other items of the task's batch still wait for a decision."""
    return (
        AdjudicationTask.objects.filter(batch_id=task.batch_id, status=AdjudicationTask.Status.OPEN)
        .exclude(pk=task.pk)
        .count()
    )


def adjudication_counts(project: Project) -> dict[str, int]:
    """Tasks open and decided, and final labels by how they were reached; empty when the
    project has none of the stage."""
    tasks = AdjudicationTask.objects.filter(item__project=project).aggregate(
        open=Count("pk", filter=Q(status=AdjudicationTask.Status.OPEN)),
        decided=Count("pk", filter=Q(status=AdjudicationTask.Status.DECIDED)),
    )
    labels = dict(FinalLabel.objects.filter(item__project=project).values_list("how").annotate(n=Count("pk")))
    if not tasks["open"] and not tasks["decided"] and not labels:
        return {}
    counts = {"adjudication_tasks_open": tasks["open"], "adjudication_tasks_decided": tasks["decided"]}
    counts.update({f"fields_{how}": labels.get(how, 0) for how in FinalLabel.How.values})
    return counts


def resolved_finals(project: Project) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(payload, field -> final value) of each item whose fields are all resolved: it has final
    labels, none unresolved, and no adjudication task still open."""
    blocked = set(
        FinalLabel.objects.filter(item__project=project, how=FinalLabel.How.UNRESOLVED).values_list(
            "item_id", flat=True
        )
    )
    blocked |= set(
        AdjudicationTask.objects.filter(item__project=project, status=AdjudicationTask.Status.OPEN).values_list(
            "item_id", flat=True
        )
    )
    values = {item_id: final for item_id, final in final_values(project).items() if item_id not in blocked}
    payloads = dict(Item.objects.filter(pk__in=list(values)).order_by("id").values_list("pk", "payload"))
    return [(payloads[item_id], values[item_id]) for item_id in sorted(values)]


def adjudication_summary(project: Project) -> dict[str, Any]:
    """The quality run's adjudication figures: the stage's counts and the kind's figures on the
    fully resolved items (`TaskKind.final_quality`); empty when the project has no stage."""
    counts: dict[str, Any] = adjudication_counts(project)
    if not counts:
        return counts
    return {**counts, **kind_of(project).final_quality(resolved_finals(project))}


FINAL_COLUMNS = ["item_id", "external_id", "batch", "field", "value", "how", "decided_by_id", "decided_by", "reason"]


def final_label_rows(project: Project) -> Iterator[dict[str, Any]]:
    """Every final label: the value (a person's reading of it, `TaskKind.final_export_value`;
    CSV joins a list with ';', JSONL keeps it JSON), how it was reached, who decided it and why not."""
    fields = (
        "item_id",
        "item__external_id",
        "batch__name",
        "field",
        "value",
        "how",
        "decided_by_id",
        "decided_by__external_id",
        "reason",
    )
    kind = kind_of(project)
    queryset = FinalLabel.objects.filter(item__project=project).order_by("item_id", "batch_id", "id")
    for item_id, ext, batch, field, value, how, who_id, who, reason in queryset.values_list(*fields).iterator(2000):
        yield {
            "item_id": item_id,
            "external_id": ext,
            "batch": batch,
            "field": field,
            "value": None if value is None else kind.final_export_value(field, value),
            "how": how,
            "decided_by_id": who_id,
            "decided_by": who or "",
            "reason": reason,
        }


def final_values(project: Project) -> dict[int, dict[str, Any]]:
    """Per item, its resolved final labels (agreed or adjudicated) by field."""
    found: dict[int, dict[str, Any]] = {}
    queryset = FinalLabel.objects.filter(item__project=project).exclude(how=FinalLabel.How.UNRESOLVED)
    for item_id, field, value in queryset.values_list("item_id", "field", "value").iterator(2000):
        found.setdefault(item_id, {})[field] = value
    return found


EXPORT_CHUNK = 2000
ADJUDICATION_COLUMNS = [
    "task_id",
    "item_id",
    "external_id",
    "batch",
    "first_annotator_id",
    "first_annotator",
    "second_annotator_id",
    "second_annotator",
    "fields_in_dispute",
    "adjudicator_id",
    "adjudicator",
    "answers",
    "status",
    "created_at",
    "decided_at",
]


def adjudication_rows(project: Project) -> Iterator[dict[str, Any]]:
    """Each adjudication task: the two annotators numbered as the adjudicator's page numbers them
    (`task_sides`: by their invite link, not by who finished first), the fields in dispute and the
    adjudicator's decisions as given (the third annotation), each value as the final-labels export
    shows it (`TaskKind.final_export_value`: a kind's sentences numbered from 1, as typed). One look-up of the
    annotators' origins per chunk of tasks."""
    queryset = (
        AdjudicationTask.objects.filter(item__project=project)
        .order_by("id")
        .select_related(
            "item",
            "batch",
            "adjudicator",
            "first_response__assignment__annotator",
            "second_response__assignment__annotator",
        )
    )
    kind = kind_of(project)
    tasks = queryset.iterator(EXPORT_CHUNK)
    while chunk := list(islice(tasks, EXPORT_CHUNK)):
        origins = annotator_origins(
            r.assignment.annotator for task in chunk for r in (task.first_response, task.second_response)
        )
        for task in chunk:
            first, second = sorted(
                (task.first_response, task.second_response), key=lambda r: origins[r.assignment.annotator_id].rank
            )
            yield {
                "task_id": task.pk,
                "item_id": task.item_id,
                "external_id": task.item.external_id,
                "batch": task.batch.name,
                "first_annotator_id": first.assignment.annotator_id,
                "first_annotator": first.assignment.annotator.external_id,
                "second_annotator_id": second.assignment.annotator_id,
                "second_annotator": second.assignment.annotator.external_id,
                "fields_in_dispute": list(task.fields_in_dispute),
                "adjudicator_id": task.adjudicator_id,
                "adjudicator": task.adjudicator.external_id if task.adjudicator else "",
                "answers": {
                    field: None if value is None else kind.final_export_value(field, value)
                    for field, value in task.answers.items()
                },
                "status": task.status,
                "created_at": task.created_at.isoformat(),
                "decided_at": task.decided_at.isoformat() if task.decided_at else "",
            }
