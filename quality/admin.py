"""Quality runs in the admin: read-only records, each linking to its full report page.

Runs are made by the "Run quality now" button of the report page (a service call), never by
editing here; no business logic lives in this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from annotation.admin.common import OwnTeamsFilter, TeamScoped, breakable, ref_column, time_column
from annotation.kinds import kind_of
from quality.models import AnnotatorDecision, ExportJob, ItemResult, Prediction, QualityRun, ResponseDecision
from quality.report.context import run_report_context
from quality.report.format import figure
from quality.selectors import export_jobs, run_summary, runs_with_counts

if TYPE_CHECKING:
    from quality.selectors import CountedRun


@admin.display(description="run", ordering="run__number")
def run_number(obj: ResponseDecision | ItemResult) -> str:
    """The run as its project's report numbers it (`QualityRun.number`), not its id across projects."""
    return str(obj.run.number)


def _reasons(obj) -> str:
    return format_html_join("", "<div>{}</div>", ((r,) for r in obj.reasons)) or "—"


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class AnnotatorDecisionInline(ReadOnlyMixin, admin.TabularInline):
    model = AnnotatorDecision
    fields = ("annotator", "keep", "reasons_text", "metrics")
    readonly_fields = fields
    can_delete = False
    extra = 0
    ordering = ("keep", "annotator__external_id")

    @admin.display(description="reasons")
    def reasons_text(self, obj: AnnotatorDecision) -> str:
        return _reasons(obj)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("annotator")


@admin.register(QualityRun)
class QualityRunAdmin(TeamScoped, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "__str__",
        "status",
        time_column("created_at", "Created"),
        "responses_kept",
        "annotators_kept",
        "report_link",
    )
    list_filter = ("status", ("project", OwnTeamsFilter))
    date_hierarchy = "created_at"
    fields = (
        "project",
        "number",
        "status",
        "created_by",
        "created_at",
        "finished_at",
        "parameters",
        "summary",
        "error",
        "report_link",
    )
    readonly_fields = fields
    inlines = [AnnotatorDecisionInline]

    def get_queryset(self, request):
        return runs_with_counts(super().get_queryset(request))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The run's headline figures, agreement table and plots above its fields."""
        run = self.get_object(request, object_id)
        return super().change_view(request, object_id, form_url, {**run_report_context(run), **(extra_context or {})})

    @admin.display(description="responses", ordering="n_responses_kept")
    def responses_kept(self, run: CountedRun) -> str:
        return f"{run.n_responses_kept} of {run.n_responses} kept"

    @admin.display(description="annotators", ordering="n_annotators_kept")
    def annotators_kept(self, run: CountedRun) -> str:
        return f"{run.n_annotators_kept} of {run.n_annotators} kept"

    @admin.display(description="summary")
    def summary(self, run: QualityRun) -> str:
        styles = kind_of(run.project).figure_styles()
        return format_html_join("", "<div>{}: {}</div>", (figure(k, v, styles) for k, v in run_summary(run))) or "—"

    @admin.display(description="full report")
    def report_link(self, run: QualityRun) -> str:
        url = reverse("quality:report", args=[run.project_id]) + f"?run={run.pk}"
        return format_html('<a href="{}">Report, item diagnostics and exports</a>', url)


@admin.register(ResponseDecision)
class ResponseDecisionAdmin(TeamScoped, ReadOnlyMixin, admin.ModelAdmin):
    """Why each annotation was kept or dropped, filterable by run and outcome."""

    project_path = "run__project"

    list_display = ("response_id", run_number, "item", "annotator", "keep", "reasons_text")
    list_filter = ("keep", ("run__project", OwnTeamsFilter), ("run", OwnTeamsFilter))
    list_select_related = ("run", "response__item", "response__assignment__annotator")
    search_fields = ("response__item__external_id", "response__assignment__annotator__external_id")
    raw_id_fields = ("run", "response")
    show_full_result_count = False

    @admin.display(description="item")
    def item(self, obj: ResponseDecision) -> SafeString:
        return breakable(obj.response.item.external_id)

    @admin.display(description="annotator")
    def annotator(self, obj: ResponseDecision) -> SafeString:
        return breakable(obj.response.assignment.annotator.external_id)

    @admin.display(description="reasons")
    def reasons_text(self, obj: ResponseDecision) -> str:
        return _reasons(obj)


@admin.register(ItemResult)
class ItemResultAdmin(TeamScoped, ReadOnlyMixin, admin.ModelAdmin):
    project_path = "run__project"
    list_display = (ref_column("item", "Item", ordering="item__external_id"), run_number, "diagnostics")
    list_filter = (("run__project", OwnTeamsFilter), ("run", OwnTeamsFilter))
    list_select_related = ("item", "run")
    search_fields = ("item__external_id",)
    raw_id_fields = ("run", "item")
    show_full_result_count = False


@admin.register(ExportJob)
class ExportJobAdmin(TeamScoped, ReadOnlyMixin, admin.ModelAdmin):
    """Export jobs, read-only: they are started and downloaded from the project's quality report."""

    list_display = (
        "__str__",
        "status",
        "progress_shown",
        "rows_written",
        "size",
        time_column("created_at", "Created"),
        "download_link",
    )
    list_filter = ("status", "format", ("project", OwnTeamsFilter))
    date_hierarchy = "created_at"
    fields = (
        "project",
        "dataset",
        "format",
        "options",
        "cells",
        "status",
        "progress_shown",
        "rows_written",
        "rows_total",
        "size",
        "file_name",
        "error",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "download_link",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return export_jobs(super().get_queryset(request))

    @admin.display(description="progress")
    def progress_shown(self, job: ExportJob) -> str:
        return f"{job.progress * 100:.0f} %"

    @admin.display(description="file")
    def download_link(self, job: ExportJob) -> str:
        if job.status != ExportJob.Status.DONE:
            return "—"
        return format_html(
            '<a href="{}">Download</a>', reverse("quality:export-download", args=[job.project_id, job.pk])
        )


@admin.register(Prediction)
class PredictionAdmin(TeamScoped, ReadOnlyMixin, admin.ModelAdmin):
    """A model's imported predictions, read-only (`manage.py import_predictions` writes them). No
    filter by model name: its choices would list other teams' models."""

    list_display = (
        ref_column("model", "Model"),
        ref_column("item", "Item", ordering="item__external_id"),
        "project",
        time_column("imported_at", "Imported"),
    )
    list_filter = (("project", OwnTeamsFilter),)
    search_fields = ("model", "item__external_id")
    fields = ("project", "item", "model", "labels", "imported_at")
    readonly_fields = fields
    list_select_related = ("item", "project")
