"""The quality report page, its "Run quality now" button, export jobs and downloads (staff only).

Each view needs the admin's model permission too (403 without): quality runs' view to read the
report, its plots and downloads, add to start a run; export jobs' view to download, add to start one.

Thin views: parse, call one service or selector, render; the admin look comes from
`admin.site.each_context` and the admin base template.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation.kinds import FigureStyle, kind_of
from annotation.models import Project
from annotation.selectors.teams import projects_visible_to, visible_to
from quality.exports import ExportUnavailable, Options, UnknownExport, dataset_formats, export_open, offered_datasets
from quality.exports.http import export_job_response, export_response
from quality.forms import ExportForm, HubFolderForm
from quality.models import ExportJob, QualityRun
from quality.report.context import inline_svg, run_report_context
from quality.report.format import figure
from quality.report.format import labels as figure_labels
from quality.report.format import values as figure_values
from quality.report.study_steps import study_steps_context
from quality.selectors import (
    annotator_decisions,
    annotator_metric_columns,
    item_results,
    latest_run,
    project_export_jobs,
    project_runs,
    run_plots,
    run_summary,
    run_with_counts,
    running_run,
)
from quality.services.exports import export_job_create
from quality.services.runs import quality_run_request

ITEMS_PER_PAGE = 100
JOBS_SHOWN = 20
#: summary figures the page already shows from the stored decisions (or as parameters)
SHOWN_AS_COUNTS = ("responses", "responses_kept", "annotators", "annotators_kept", "min_accuracy")


def _summary(run: QualityRun, styles: Mapping[str, FigureStyle]) -> list[tuple[str, str]]:
    """The run's summary figures, labelled and printed as a paper's table prints them."""
    return [figure(key, value, styles) for key, value in run_summary(run, skip=SHOWN_AS_COUNTS)]


def _selected_run(request: HttpRequest, project: Project) -> QualityRun | None:
    """The run named by ?run=<id>, else the latest finished one."""
    run_id = request.GET.get("run", "")
    if run_id.isdigit():
        run = run_with_counts(int(run_id))
        if run is None or run.project_id != project.pk:
            raise Http404("No such quality run in this project.")
        return run
    latest = latest_run(project)
    return run_with_counts(latest.pk) if latest else None


def _run_tables(
    request: HttpRequest, run: QualityRun | None, columns: list[str], styles: Mapping[str, FigureStyle]
) -> dict:
    if run is None:
        return {}
    metrics = annotator_metric_columns(run)
    items = Paginator(item_results(run), ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    return {
        "annotator_rows": [(d, figure_values(metrics, d.metrics, styles)) for d in annotator_decisions(run)],
        "metric_labels": figure_labels(metrics, styles),
        "items_page": items,
        "item_rows": [(r.item.external_id, r.item_id, figure_values(columns, r.diagnostics, styles)) for r in items],
        "summary": _summary(run, styles),
    }


@staff_member_required
@permission_required("quality.view_qualityrun", raise_exception=True)
@require_GET
def report(request: HttpRequest, project_id: int) -> HttpResponse:
    project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    run = _selected_run(request, project)
    kind = kind_of(project)
    columns, styles = kind.item_diagnostic_columns(), kind.figure_styles()
    context = {
        **admin.site.each_context(request),
        "title": f"Quality report: {project.name}",
        "project": project,
        "kind_title": kind.title,
        "run": run,
        "runs": project_runs(project)[:20],
        "diagnostic_labels": figure_labels(columns, styles),
        "datasets": [(name, text, dataset_formats(name)) for name, (_, text) in offered_datasets(project).items()],
        "export_form": ExportForm(project=project),
        "hub_form": HubFolderForm(initial={"task_categories": ", ".join(kind_of(project).hub_task_categories())}),
        "export_jobs": project_export_jobs(project)[:JOBS_SHOWN],
        "pending": running_run(project),
        **_run_tables(request, run, columns, styles),
        **run_report_context(run),
        **study_steps_context(project),
    }
    return render(request, "quality/report.html", context)


def _run_of(request: HttpRequest, project_id: int, run_id: int) -> QualityRun:
    """A run of a project the user may reach; any other answers 404, like one that does not exist."""
    runs = visible_to(request.user, QualityRun.objects.select_related("project"))
    return get_object_or_404(runs, pk=run_id, project_id=project_id)


@staff_member_required
@permission_required("quality.view_qualityrun", raise_exception=True)
@require_GET
def plot(request: HttpRequest, project_id: int, run_id: int, name: str) -> HttpResponse:
    """One stored plot of a run, as an SVG image."""
    found = run_plots(_run_of(request, project_id, run_id)).filter(name=name).exclude(svg="").first()
    if found is None:
        raise Http404("No such plot in this run.")
    return HttpResponse(found.svg, content_type="image/svg+xml")


@staff_member_required
@permission_required("quality.view_qualityrun", raise_exception=True)
@require_GET
def run_status(request: HttpRequest, project_id: int, run_id: int) -> JsonResponse:
    """A run's state, polled by the report page while a worker computes it."""
    run = _run_of(request, project_id, run_id)
    return JsonResponse({"id": run.pk, "status": run.status, "error": run.error})


@staff_member_required
@permission_required("quality.view_qualityrun", raise_exception=True)
@require_GET
def report_download(request: HttpRequest, project_id: int, run_id: int) -> HttpResponse:
    """The run's figures, tables and plots as one self-contained HTML file (plots inline as SVG)."""
    run = run_with_counts(_run_of(request, project_id, run_id).pk)
    if run is None:  # deleted since _run_of found it
        raise Http404("No such quality run in this project.")
    kind = kind_of(run.project)
    context = {
        "project": run.project,
        "kind_title": kind.title,
        "run": run,
        **run_report_context(run),
        **study_steps_context(run.project),
        "inline_plots": [(p.title, inline_svg(p.svg) if p.svg else "", p.note) for p in run_plots(run)],
        "summary": _summary(run, kind.figure_styles()),
    }
    response = render(request, "quality/report_download.html", context)
    filename = f"quality-report-project{run.project_id}-run{run.pk}.html"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@staff_member_required
@permission_required("quality.add_qualityrun", raise_exception=True)
@require_POST
def run_now(request: HttpRequest, project_id: int) -> HttpResponse:
    project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    run = quality_run_request(project=project, by=request.user)
    run.refresh_from_db()
    if run.status == QualityRun.Status.DONE:
        messages.success(request, f"Quality run {run.number} finished.")
    elif run.status == QualityRun.Status.FAILED:
        messages.error(request, f"Quality run {run.number} failed: {run.error}")
    else:
        messages.info(request, f"Quality run {run.number} started; reload this page to see it when it finishes.")
    return redirect("quality:report", project_id=project.pk)


@staff_member_required
@permission_required("quality.view_exportjob", raise_exception=True)
@require_GET
def export(request: HttpRequest, project_id: int, dataset: str, fmt: str) -> HttpResponseBase:
    """A download at once, streamed through the same writer as the jobs (for small exports);
    `?spreadsheet_safe=1`, `?item_text=1` as the job form's options."""
    project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    options = Options(
        spreadsheet_safe=request.GET.get("spreadsheet_safe") == "1", item_text=request.GET.get("item_text") == "1"
    )
    try:
        export = export_open(
            project=project, dataset=dataset, fmt=fmt, options=options, max_records=settings.EXPORT_STREAM_MAX_RECORDS
        )
        return export_response(export)
    except UnknownExport as exc:
        raise Http404(str(exc)) from None
    except ExportUnavailable as exc:
        messages.error(request, str(exc))
        return redirect("quality:report", project_id=project.pk)


@staff_member_required
@permission_required("quality.add_exportjob", raise_exception=True)
@require_POST
def export_start(request: HttpRequest, project_id: int) -> HttpResponse:
    """Start an export job; it writes a file the page then lists with a download link."""
    project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    form = ExportForm(request.POST, project=project)
    if not form.is_valid():
        messages.error(request, f"Export not started: {form.errors.as_text()}")
        return redirect("quality:report", project_id=project.pk)
    try:
        job = export_job_create(
            project=project,
            dataset=form.cleaned_data["dataset"],
            fmt=form.cleaned_data["format"],
            options=form.options(),
            by=request.user,
        )
    except (ExportUnavailable, UnknownExport) as exc:  # e.g. a format the dataset is not written in
        messages.error(request, str(exc))
        return redirect("quality:report", project_id=project.pk)
    announce_job(request, job, what="Export")
    return redirect("quality:report", project_id=project.pk)


def announce_job(request: HttpRequest, job: ExportJob, *, what: str) -> None:
    """Say on the report page what became of a job just started: written (no broker), failed, or on its way."""
    job.refresh_from_db()
    if job.status == ExportJob.Status.DONE:
        messages.success(request, f"{what} #{job.pk} is ready ({job.rows_written} rows); download it below.")
    elif job.status == ExportJob.Status.FAILED:
        messages.error(request, f"{what} #{job.pk} failed: {job.error}")
    else:
        messages.info(request, f"{what} #{job.pk} started; reload this page to follow its progress.")


@staff_member_required
@permission_required("quality.view_exportjob", raise_exception=True)
@require_GET
def export_download(request: HttpRequest, project_id: int, job_id: int) -> FileResponse:
    """A finished export job's file."""
    job = get_object_or_404(visible_to(request.user, ExportJob.objects.all()), pk=job_id, project_id=project_id)
    return export_job_response(job)
