"""Read queries of the quality app, shared by the report page, the admin, the API and exports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

import pandas as pd
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from annotation.kinds import UNTIMED_KEY
from annotation.kinds.typed import MAX_SECONDS, usable_seconds
from annotation.models import Annotator, Assignment, Item, Participation, Project, Response, Unit, UnitItem
from quality.models import AnnotatorDecision, ExportJob, ItemResult, QualityRun, ResponseDecision, RunPlot


class RunCounts(TypedDict):
    """What runs_with_counts adds to each run."""

    n_responses: int
    n_responses_kept: int
    n_annotators: int
    n_annotators_kept: int
    n_items: int


if TYPE_CHECKING:  # django-stubs' name for a model instance with annotations (no runtime use)
    from django_stubs_ext import WithAnnotations

    CountedRun: TypeAlias = WithAnnotations[QualityRun, RunCounts]


def latest_run(project: Project) -> QualityRun | None:
    """The newest finished quality run: the one exports and reviews use."""
    return (
        QualityRun.objects.filter(project=project, status=QualityRun.Status.DONE).order_by("-created_at", "-id").first()
    )


def _count(model, keep: bool | None = None) -> Coalesce:
    """A correlated COUNT per run: cheaper than joining three large decision tables at once."""
    qs = model.objects.filter(run=OuterRef("pk"))
    if keep is not None:
        qs = qs.filter(keep=keep)
    counted = qs.order_by().values("run").annotate(n=Count("id")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def runs_with_counts(queryset: QuerySet[QualityRun] | None = None) -> QuerySet[CountedRun]:
    """Runs annotated with n_responses, n_responses_kept, n_annotators, n_annotators_kept, n_items."""
    queryset = QualityRun.objects.all() if queryset is None else queryset
    return queryset.select_related("project", "created_by").annotate(
        n_responses=_count(ResponseDecision),
        n_responses_kept=_count(ResponseDecision, keep=True),
        n_annotators=_count(AnnotatorDecision),
        n_annotators_kept=_count(AnnotatorDecision, keep=True),
        n_items=_count(ItemResult),
    )


def project_runs(project: Project) -> QuerySet[CountedRun]:
    """A project's runs, newest first, with their counts."""
    return runs_with_counts(QualityRun.objects.filter(project=project)).order_by("-created_at", "-id")


def run_with_counts(run_id: int) -> CountedRun | None:
    return runs_with_counts(QualityRun.objects.filter(pk=run_id)).first()


def kept_response_ids(run: QualityRun) -> QuerySet:
    """The responses a run keeps, as a subquery (never loaded into Python)."""
    return ResponseDecision.objects.filter(run=run, keep=True).values("response_id")


def annotator_decisions(run: QualityRun) -> QuerySet[AnnotatorDecision]:
    """Dropped annotators first, then by external id, with the annotator loaded."""
    return (
        AnnotatorDecision.objects.filter(run=run).select_related("annotator").order_by("keep", "annotator__external_id")
    )


def item_results(run: QualityRun) -> QuerySet[ItemResult]:
    return ItemResult.objects.filter(run=run).select_related("item").order_by("item_id")


def response_decisions(run: QualityRun) -> QuerySet[ResponseDecision]:
    return ResponseDecision.objects.filter(run=run).order_by("response_id")


def response_value_columns(run: QualityRun) -> list[str]:
    """Per-annotation values a run derived (e.g. calibrated and rescaled ratings)."""
    return list((run.report or {}).get("response_values") or [])


def response_values(run: QualityRun, response_ids: list[int]) -> dict[int, dict]:
    return dict(
        ResponseDecision.objects.filter(run=run, response_id__in=response_ids).values_list("response_id", "values")
    )


def annotator_metric_columns(run: QualityRun) -> list[str]:
    """The per-annotator metrics in the order the rules produced them (stored in the report)."""
    stored = (run.report or {}).get("annotator_metrics")
    if stored is not None:
        return list(stored)
    first = AnnotatorDecision.objects.filter(run=run).values_list("metrics", flat=True).first()
    return sorted(first or {})


def run_summary(run: QualityRun, *, skip: tuple[str, ...] = ()) -> list[tuple[str, object]]:
    """The run's summary figures as (name, value) pairs, in the rules' order."""
    report = run.report or {}
    summary = report.get("summary", {})
    keys = [k for k in report.get("summary_keys", []) if k in summary]
    return [(k, summary[k]) for k in keys + sorted(set(summary) - set(keys)) if k not in skip]


def project_export_jobs(project: Project) -> QuerySet[ExportJob]:
    """A project's export jobs, newest first, with who asked for them."""
    return ExportJob.objects.filter(project=project).select_related("created_by").order_by("-created_at", "-id")


def export_jobs(queryset: QuerySet[ExportJob] | None = None) -> QuerySet[ExportJob]:
    """Export jobs with their project and creator loaded (API detail, admin list)."""
    return (ExportJob.objects.all() if queryset is None else queryset).select_related("project", "created_by")


def run_plots(run: QualityRun) -> QuerySet[RunPlot]:
    """The run's stored plots in page order."""
    return RunPlot.objects.filter(run=run).order_by("position")


def run_agreement(run: QualityRun) -> dict:
    """Per label field: agreement figures, as stored by the run (`quality.agreement.agreement_json`)."""
    report = run.report or {}
    fields = report.get("agreement") or {}
    return {name: fields[name] for name in report.get("agreement_fields", sorted(fields)) if name in fields}


def run_headline(run: QualityRun) -> dict:
    return (run.report or {}).get("headline") or {}


def run_aggregation(run: QualityRun) -> dict:
    return (run.report or {}).get("aggregation") or {}


def run_time_on_task(run: QualityRun) -> dict:
    """The run's "time on task" section (empty when the too-fast rule was off)."""
    return (run.report or {}).get("time_on_task") or {}


def page_seconds(project: Project) -> pd.DataFrame:
    """(response_id, page, seconds, untimed) of every timed page of the responses a quality run
    judges (work a recruiting site has confirmed), in response order, and of every page saved
    without a valid note of when it was shown (`untimed_saves: suspect`: seconds None, untimed
    True): what the too-fast rules read."""
    responses = Response.objects.filter(
        item_id__in=Item.objects.data().filter(project=project).values("id"), assignment__confirmed=True
    )
    rows: list[tuple[int, str, float | None, bool]] = []
    for rid, timings in responses.order_by("id").values_list("id", "timings").iterator(chunk_size=2000):
        for page, timing in (timings or {}).items():
            if not isinstance(timing, dict):
                continue
            if timing.get(UNTIMED_KEY):
                rows.append((rid, page, None, True))
            elif (seconds := usable_seconds(timing.get("seconds"))) is not None:
                rows.append((rid, page, seconds, False))
    return pd.DataFrame(rows, columns=["response_id", "page", "seconds", "untimed"])


def unusable_values(project: Project) -> list[dict[str, Any]]:
    """The stored times a run cannot use (negative, not finite, beyond MAX_SECONDS: kept before
    the import checked them), each with its item and annotator; the run reads them as unknown."""
    responses = Response.objects.filter(item__project=project).order_by("id")
    found = []
    for rid, item, annotator, timings in responses.values_list(
        "id", "item__external_id", "assignment__annotator__external_id", "timings"
    ).iterator(chunk_size=2000):
        for page, timing in (timings or {}).items():
            value = timing.get("seconds") if isinstance(timing, dict) else None
            if value is not None and usable_seconds(value) is None:
                found.append(
                    {
                        "response_id": rid,
                        "item": item,
                        "annotator": annotator,
                        "field": f"timings.{page}.seconds",
                        "value": repr(value)[:40],
                        "reason": f"not a number of seconds from 0 to {MAX_SECONDS:,}: read as unknown",
                    }
                )
    return found


def check_results(project: Project) -> pd.DataFrame:
    """Per annotator (index annotator_id) of the project who answered a check item or was stopped
    by live quality: check answers judged, how many right, and the standing stop's reason (empty:
    none, or a researcher lifted it). Work a recruiting site has not confirmed is left out."""
    judged = (
        Response.objects.filter(
            item__project=project, check_passed__isnull=False, training=False, assignment__confirmed=True
        )
        .values("assignment__annotator_id")
        .annotate(checks=Count("id"), checks_right=Count("id", filter=Q(check_passed=True)))
    )
    rows = {r["assignment__annotator_id"]: [r["checks"], r["checks_right"], ""] for r in judged}
    stops = Participation.objects.filter(batch__project=project, stopped_at__isnull=False, lifted_at__isnull=True)
    for annotator_id, reason in stops.values_list("annotator_id", "stop_reason"):
        rows.setdefault(annotator_id, [0, 0, ""])[2] = reason or "stopped by live quality"
    names = dict(Annotator.objects.filter(pk__in=list(rows)).values_list("pk", "external_id"))
    for annotator_id, row in rows.items():
        row.append(names.get(annotator_id, str(annotator_id)))
    columns = ["checks", "checks_right", "stop_reason", "annotator"]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    table.index.name = "annotator_id"
    return table.sort_index()


def run_checks(run: QualityRun) -> dict:
    """The run's "check items" section (empty when no check was answered and nobody stopped)."""
    return (run.report or {}).get("checks") or {}


def run_uncertainty(run: QualityRun) -> dict:
    """Per aggregated field: the method, its posteriors' summary and each annotator's competence
    with its interval (`quality.uncertainty`); empty for runs before it."""
    report = run.report or {}
    fields = report.get("uncertainty") or {}
    order = report.get("agreement_fields") or sorted(fields)
    return {name: fields[name] for name in order if name in fields}


def run_pilot_agreement(run: QualityRun) -> dict:
    """Per label field: agreement on the pilot items (empty: no pilot, or fewer than two
    annotators have done a pilot item), in the order of `run_agreement`."""
    report = run.report or {}
    fields = report.get("pilot_agreement") or {}
    return {name: fields[name] for name in report.get("agreement_fields", sorted(fields)) if name in fields}


def pilot_items(project: Project) -> set[tuple[int, int]]:
    """(batch id, item id) of every item of a pilot unit of the project's batches."""
    rows = UnitItem.objects.filter(unit__batch__project=project, unit__pilot=True)
    return set(rows.values_list("unit__batch_id", "item_id"))


def assignment_events(project: Project) -> pd.DataFrame:
    """One row per assignment of the project: `started`, `ended` (submitted; for a released one
    its last activity; NaT while working) and `done` (submitted, approved or rejected). Work the
    recruiting site has not confirmed is left out, as from every other figure."""
    done_statuses = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)
    rows = Assignment.objects.filter(unit__batch__project=project, confirmed=True).values_list(
        "started_at", "submitted_at", "last_activity_at", "status"
    )
    records = [
        {
            "started": started,
            "ended": submitted if submitted else (last if status == Assignment.Status.RELEASED else None),
            "done": status in done_statuses and submitted is not None,
        }
        for started, submitted, last, status in rows.iterator()
    ]
    frame = pd.DataFrame.from_records(records, columns=["started", "ended", "done"])
    frame["started"] = pd.to_datetime(frame["started"], utc=True)
    frame["ended"] = pd.to_datetime(frame["ended"], utc=True)
    return frame


def assignment_slots(project: Project) -> int:
    """How many assignments the project's batches hand out in all: units times annotators per unit."""
    total = Unit.objects.filter(batch__project=project).aggregate(slots=Sum("batch__assignments_per_unit"))
    return int(total["slots"] or 0)


def running_run(project: Project) -> QualityRun | None:
    """The newest run still being computed (a worker has it), if any."""
    return (
        QualityRun.objects.filter(project=project, status=QualityRun.Status.RUNNING)
        .order_by("-created_at", "-id")
        .first()
    )


def run_scores(run: QualityRun) -> dict:
    """Per interval field: the per-item scores' summary (`quality.level_results`); empty for
    runs before it or without interval fields."""
    return (run.report or {}).get("scores") or {}


def run_spans(run: QualityRun) -> dict:
    """Per span field: pairwise span F1 and per-label counts (`quality.level_results`)."""
    return (run.report or {}).get("spans") or {}
