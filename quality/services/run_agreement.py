"""What a quality run adds to the kind's rules: the too-fast rule, the per-annotator agreement rule, agreement and
aggregation per label field (on the annotations the run keeps; and apart, on the pilot items),
headline figures and plots."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.kinds import QualityOutcome, kind_of
from annotation.models import Project
from quality.agreement import BOOTSTRAP, apply_annotator_rule, pilot_agreement, run_agreement
from quality.checks import apply_check_rule
from quality.frames import kept_frame
from quality.headline import headline
from quality.level_results import level_results
from quality.models import QualityRun, RunPlot
from quality.prediction_selectors import project_gold, project_predictions, suggestion_labels
from quality.predictions import predictions_report
from quality.report.figures import Figure, run_figures
from quality.selectors import assignment_events, assignment_slots, check_results, page_seconds, pilot_items
from quality.speed import apply_speed_rule, pages_needed
from quality.suggestions import suggestion_model, suggestions_report


@dataclass(frozen=True)
class RunExtras:
    outcome: QualityOutcome  # the kind's, with the agreement rule's drops and figures merged in
    report: dict[str, Any]  # headline, agreement, aggregation: keys of the run's report JSON
    figures: list[Figure]


def run_extras(
    *, project: Project, frame: pd.DataFrame, outcome: QualityOutcome, settings: Mapping[str, Any]
) -> RunExtras:
    """Apply the agreement rule to the kind's outcome, then measure agreement and aggregate on
    what is finally kept, and draw the plots. Reads the database (assignments) but writes nothing."""
    kind = kind_of(project)
    fields = list(kind.label_fields())
    pages = page_seconds(project) if pages_needed(settings) else None
    speed = apply_speed_rule(frame, outcome, settings, pages)  # before agreement: it is judged on what is kept
    outcome, checks = apply_check_rule(frame, speed.outcome, check_results(project), settings)
    outcome = apply_annotator_rule(frame, outcome, fields, settings)
    kept = kept_frame(frame, outcome.responses["keep"])
    agreement = run_agreement(kept, fields, settings)
    levels = level_results(kept, fields, BOOTSTRAP)  # interval and span fields: not voted on
    annotators = outcome.annotators
    # the kind's item diagnostics that name annotations hold only what the run finally keeps
    items = _with_aggregates(
        _with_aggregates(kind.kept_items(frame, outcome.items, outcome.responses), agreement.items), levels.items
    )
    merged = QualityOutcome(responses=outcome.responses, annotators=annotators, items=items, summary=outcome.summary)
    report = {
        "headline": headline(outcome.responses, annotators),
        "agreement": agreement.fields,
        "agreement_fields": list(agreement.fields),  # jsonb reorders keys; this keeps the kind's order
        "aggregation": agreement.aggregation,
        "uncertainty": agreement.uncertainty,
        "scores": levels.scores,
        "spans": levels.spans,
    }
    if speed.report is not None:  # only with the too-fast rule on: a run without it stays as it was
        report["time_on_task"] = speed.report
    if checks is not None:  # only where check items were answered or live quality stopped somebody
        report["checks"] = checks
    predicted = project_predictions(project)
    if predicted:  # models' predictions, scored as one more annotator: read beside the humans', never mixed in
        report["predictions"] = predictions_report(
            kept=kept,
            fields=fields,
            aggregated=agreement.items,
            annotators=annotators,
            predictions=predicted,
            gold=project_gold(project, kind),
            settings=settings,
        )
    model = suggestion_model(kept)
    if model is not None:  # annotators were shown a model's suggestions: how much they kept them (anchoring)
        labels = suggestion_labels(project, model, set(kept["item_id"]))
        report["suggestions"] = suggestions_report(kept=kept, fields=fields, model=model, labels=labels)
    pilot = pilot_agreement(kept, fields, pilot_items(project))
    if pilot is not None:  # the pilot's agreement, apart, once two annotators have done a pilot item
        report["pilot_agreement"] = pilot
    figures = run_figures(
        fields=agreement.fields,
        annotators=annotators,
        frame=frame,
        kind_plots=kind.report_plots(kept),
        confidence={name: agreement.items[f"{name}_posterior"].dropna().tolist() for name in agreement.uncertainty},
        settings=settings,
        events=assignment_events(project),
        slots=assignment_slots(project),
    )
    return RunExtras(outcome=merged, report=report, figures=figures)


def _with_aggregates(items: pd.DataFrame, aggregates: pd.DataFrame) -> pd.DataFrame:
    """The kind's item diagnostics with the aggregated labels beside them (an item the kind has
    no row for gets one)."""
    if aggregates.empty:
        return items
    aggregates = aggregates.set_axis([int(i) for i in aggregates.index])
    return items.join(aggregates, how="outer") if not items.empty else aggregates


def run_plots_store(*, run: QualityRun, figures: list[Figure]) -> None:
    """Store a run's plots (the caller holds the transaction and has removed older ones)."""
    RunPlot.objects.bulk_create(
        RunPlot(run=run, name=name, title=title, svg=svg, note=note, position=position)
        for position, (name, title, svg, note) in enumerate(figures)
    )
