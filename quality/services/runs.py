"""Running a project's quality rules and storing every decision with its reasons."""

from __future__ import annotations

import math
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.kinds import QualityOutcome, kind_of
from annotation.models import Project
from annotation.selectors.adjudication import adjudication_summary
from quality.frames import annotation_frame
from quality.models import AnnotatorDecision, ItemResult, QualityRun, ResponseDecision, RunPlot
from quality.scoring import model_scorer_results
from quality.selectors import unusable_values
from quality.services.decisions import decisions_respected
from quality.services.run_agreement import RunExtras, run_extras, run_plots_store

BULK_SIZE = 2000


def _parameters(project: Project, overrides: dict[str, Any] | None) -> dict[str, Any]:
    return kind_of(project).settings_for({**(project.settings or {}), **(overrides or {})})


@transaction.atomic
def _run_record(project: Project, by, overrides: dict[str, Any] | None) -> QualityRun:
    """A new run numbered after the project's last one (the project row is locked meanwhile, so two
    requests never take one number)."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    last = QualityRun.objects.filter(project=project).order_by("-number").values_list("number", flat=True).first()
    return QualityRun.objects.create(
        project=project, number=(last or 0) + 1, parameters=_parameters(project, overrides), created_by=by
    )


def quality_run_create(*, project: Project, by=None, overrides: dict[str, Any] | None = None) -> QualityRun:
    """Run the kind's rules over all responses now; a new run each time (older runs stay).

    Raises whatever the rules raise, after marking the run failed with the error.
    """
    run = _run_record(project, by, overrides)
    return quality_run_execute(run=run)


def quality_run_request(*, project: Project, by=None, overrides: dict[str, Any] | None = None) -> QualityRun:
    """Record a run and hand it to the `run_quality` task once the row is committed.

    Without a broker the task runs inline, so the returned run is already finished (done or
    failed); with a broker it is still running and the caller polls it.
    """
    from quality import tasks  # tasks call services; import here to keep the cycle out of module load

    run = _run_record(project, by, overrides)
    transaction.on_commit(
        lambda: tasks.run_quality.delay(project.pk, getattr(by, "pk", None), run_id=run.pk), robust=True
    )
    return run


def quality_run_execute(*, run: QualityRun) -> QualityRun:
    """Compute and store the decisions of a recorded run. Idempotent: a finished run is returned as is.

    A run that failed before is computed again (its decisions were rolled back with the failure).
    """
    if run.status == QualityRun.Status.DONE:
        return run
    project = run.project
    try:
        frame = annotation_frame(project)
        outcome = None if frame.empty else kind_of(project).quality(frame, run.parameters)
        if outcome is not None:  # the researcher's own verdicts over the rules' (the item page)
            outcome = decisions_respected(outcome, project)
        extras = (
            None
            if outcome is None
            else run_extras(project=project, frame=frame, outcome=outcome, settings=run.parameters)
        )
        with transaction.atomic():
            ResponseDecision.objects.filter(run=run).delete()
            AnnotatorDecision.objects.filter(run=run).delete()
            ItemResult.objects.filter(run=run).delete()
            RunPlot.objects.filter(run=run).delete()
            _store(run, extras)
            if extras is not None:
                run_plots_store(run=run, figures=extras.figures)
                _store_model_scores(run)
    except Exception as exc:
        QualityRun.objects.filter(pk=run.pk).update(
            status=QualityRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now()
        )
        raise
    run.refresh_from_db()
    return run


def _store(run: QualityRun, extras: RunExtras | None) -> None:
    if extras is None:
        report: dict[str, Any] = {"summary": {"responses": 0, "responses_kept": 0}, "note": "no responses yet"}
    else:
        outcome: QualityOutcome = extras.outcome
        _store_responses(run, outcome.responses)
        _store_annotators(run, outcome.annotators)
        _store_items(run, outcome.items)
        report = {
            "summary": {k: _jsonable(v) for k, v in outcome.summary.items()},
            # jsonb (PostgreSQL) reorders object keys; lists keep the order for reports and exports
            "summary_keys": list(outcome.summary),
            "annotator_metrics": [c for c in outcome.annotators.columns if c not in ("keep", "reasons")],
            "response_values": _value_columns(outcome.responses),
            **extras.report,
        }
    unusable = unusable_values(run.project)
    if unusable:  # stored values the run read as unknown, each named (issue 37)
        report["unusable_values"] = unusable
    adjudication = adjudication_summary(run.project)
    if adjudication:  # the adjudication stage's progress and final labels beside the kind's figures
        keys = report.get("summary_keys", list(report["summary"]))
        report["summary"] = {**report["summary"], **adjudication}
        report["summary_keys"] = [*keys, *adjudication]
    QualityRun.objects.filter(pk=run.pk).update(
        status=QualityRun.Status.DONE, report=report, error="", finished_at=timezone.now()
    )


def _store_model_scores(run: QualityRun) -> None:
    """Beside each model's scores, the kind's own scorers' on its predictions (`kind_scores`),
    once the run is stored: they read it as they read any finished run."""
    run.refresh_from_db()
    report = run.report or {}
    section = report.get("predictions")
    if not section:
        return
    for model, result in model_scorer_results(run).items():
        if result and model in section["models"]:
            section["models"][model]["kind_scores"] = result
    QualityRun.objects.filter(pk=run.pk).update(report=report)


def _value_columns(frame) -> list[str]:
    return [c for c in frame.columns if c not in ("keep", "reasons")]


def _store_responses(run: QualityRun, responses) -> None:
    columns = _value_columns(responses)
    values = responses[columns].to_dict("records") if columns else [{}] * len(responses)
    ResponseDecision.objects.bulk_create(
        (
            ResponseDecision(
                run=run,
                response_id=int(rid),
                keep=bool(keep),
                reasons=list(reasons),
                values={c: _jsonable(v) for c, v in row.items()},
            )
            for rid, keep, reasons, row in zip(responses.index, responses["keep"], responses["reasons"], values)
        ),
        batch_size=BULK_SIZE,
    )


def _store_annotators(run: QualityRun, annotators) -> None:
    metric_columns = [c for c in annotators.columns if c not in ("keep", "reasons")]
    metrics = annotators[metric_columns].to_dict("records")
    AnnotatorDecision.objects.bulk_create(
        (
            AnnotatorDecision(
                run=run,
                annotator_id=int(aid),
                keep=bool(keep),
                reasons=list(reasons),
                metrics={c: _jsonable(v) for c, v in m.items()},
            )
            for aid, keep, reasons, m in zip(annotators.index, annotators["keep"], annotators["reasons"], metrics)
        ),
        batch_size=BULK_SIZE,
    )


def _store_items(run: QualityRun, items) -> None:
    ItemResult.objects.bulk_create(
        (
            ItemResult(run=run, item_id=int(iid), diagnostics={c: _jsonable(v) for c, v in row.items()})
            for iid, row in zip(items.index, items.to_dict("records"))
        ),
        batch_size=BULK_SIZE,
    )


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
