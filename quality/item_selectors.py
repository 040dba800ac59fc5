"""What the researcher's item page shows: one item's annotations side by side per field (the
kind's adjudication fields, so it works for every kind), where they disagree, each annotation's
verdict in the latest quality run with its reasons, the researcher's own decision, and the
item's final labels where the adjudication stage gave it some."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.channels import annotator_origins
from annotation.kinds import kind_of
from annotation.models import FinalLabel, Item, Response
from annotation.naming import annotator_name
from quality.models import QualityRun, ResearcherDecision, ResponseDecision
from quality.selectors import latest_run


@dataclass(frozen=True)
class Annotation:
    """One column of the page: an annotation, who made it, and the verdicts on it."""

    response: Response
    name: str
    completed: bool
    #: the latest run's verdict (None: the run did not judge it, or there is no run)
    keep: bool | None
    reasons: list[str]
    researcher: ResearcherDecision | None


@dataclass(frozen=True)
class FieldRow:
    """One row: a field's value in each annotation (in column order), whether the finished
    annotations disagree on it, and its final label (how it was reached, the value)."""

    name: str
    title: str
    values: list[str]
    disagree: bool
    final: tuple[str, str] | None


@dataclass(frozen=True)
class ItemPage:
    item: Item
    text: dict[str, str]
    run: QualityRun | None
    annotations: list[Annotation]
    rows: list[FieldRow]


def item_page(item: Item) -> ItemPage:
    """The page of `item` (with its project): a fixed number of queries however many annotations."""
    kind, payload = kind_of(item.project), item.payload
    responses = [
        r
        for r in Response.objects.filter(item=item).select_related(
            "assignment__annotator", "researcher_decision__decided_by"
        )
        if r.answers or r.completed_at is not None  # not one handed out with nothing saved yet
    ]
    origins = annotator_origins(r.assignment.annotator for r in responses)
    responses.sort(key=lambda r: origins[r.assignment.annotator_id].rank)
    run = latest_run(item.project)
    verdicts = (
        {}
        if run is None
        else {
            rid: (keep, reasons)
            for rid, keep, reasons in ResponseDecision.objects.filter(run=run, response__item=item).values_list(
                "response_id", "keep", "reasons"
            )
        }
    )
    annotations = [
        Annotation(
            response=r,
            name=f"{annotator_name(r.assignment.annotator_id, r.assignment.annotator.external_id)}"
            f" · {origins[r.assignment.annotator_id].name}",
            completed=r.completed_at is not None,
            keep=verdicts.get(r.pk, (None, []))[0],
            reasons=list(verdicts.get(r.pk, (None, []))[1]),
            researcher=getattr(r, "researcher_decision", None),
        )
        for r in responses
    ]
    return ItemPage(item, kind.adjudication_item(payload), run, annotations, _rows(item, kind, annotations))


def _rows(item: Item, kind: Any, annotations: list[Annotation]) -> list[FieldRow]:
    payload = item.payload
    values = [kind.adjudication_fields(payload, a.response.answers) for a in annotations]
    names = list(dict.fromkeys(name for found in values for name in found)) or [f.name for f in kind.label_fields()]
    finals = {
        field: (how, kind.adjudication_display(payload, field, value) if how != FinalLabel.How.UNRESOLVED else "—")
        for field, how, value in FinalLabel.objects.filter(item=item)
        .order_by("id")
        .values_list("field", "how", "value")
    }
    rows = []
    for name in names:
        done = [found.get(name) for found, a in zip(values, annotations, strict=True) if a.completed]
        rows.append(
            FieldRow(
                name=name,
                title=kind.adjudication_title(name),
                values=[kind.adjudication_display(payload, name, found.get(name)) for found in values],
                disagree=any(not kind.same(name, done[0], other) for other in done[1:]),
                final=finals.get(name),
            )
        )
    return rows
