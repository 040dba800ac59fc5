"""Running a project's quality rules and storing every decision with its reasons."""
from __future__ import annotations

import math
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.kinds import get_kind
from annotation.models import Project
from quality.frames import annotation_frame
from quality.models import AnnotatorDecision, ItemResult, QualityRun, ResponseDecision


def quality_run_create(*, project: Project, by=None, overrides: dict[str, Any] | None = None) -> QualityRun:
    """Run the kind's rules over all responses now; a new run each time (older runs stay)."""
    kind = get_kind(project.kind)
    parameters = kind.settings_for({**(project.settings or {}), **(overrides or {})})
    run = QualityRun.objects.create(project=project, parameters=parameters, created_by=by)
    try:
        frame = annotation_frame(project)
        if frame.empty:
            outcome = None
        else:
            outcome = kind.quality(frame, parameters)
        with transaction.atomic():
            _store(run, outcome)
    except Exception as exc:
        QualityRun.objects.filter(pk=run.pk).update(
            status=QualityRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now()
        )
        raise
    run.refresh_from_db()
    return run


def _store(run: QualityRun, outcome) -> None:
    if outcome is None:
        report = {"summary": {"responses": 0}, "note": "no responses yet"}
    else:
        ResponseDecision.objects.bulk_create(
            [
                ResponseDecision(run=run, response_id=int(rid), keep=bool(row["keep"]), reasons=list(row["reasons"]))
                for rid, row in outcome.responses.iterrows()
            ],
            batch_size=2000,
        )
        metric_columns = [c for c in outcome.annotators.columns if c not in ("keep", "reasons")]
        AnnotatorDecision.objects.bulk_create(
            [
                AnnotatorDecision(
                    run=run,
                    annotator_id=int(aid),
                    keep=bool(row["keep"]),
                    reasons=list(row["reasons"]),
                    metrics={c: _jsonable(row[c]) for c in metric_columns},
                )
                for aid, row in outcome.annotators.iterrows()
            ],
            batch_size=2000,
        )
        ItemResult.objects.bulk_create(
            [
                ItemResult(run=run, item_id=int(iid), diagnostics={c: _jsonable(v) for c, v in row.items()})
                for iid, row in outcome.items.iterrows()
            ],
            batch_size=2000,
        )
        report = {"summary": {k: _jsonable(v) for k, v in outcome.summary.items()}}
    QualityRun.objects.filter(pk=run.pk).update(status=QualityRun.Status.DONE, report=report, finished_at=timezone.now())


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

