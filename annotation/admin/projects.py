"""Projects and their items, with the "Import items" page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from annotation.kinds import ImportProblem, kind_of
from annotation.models import Item, Project
from annotation.selectors.teams import default_team_of
from annotation.services.projects import consistency_set_choose, project_create, project_task_file_change
from annotation.services.uploads import items_import_file

from .common import OwnTeamsFilter, TeamScoped, adopt, pretty_json, preview_url, quality_report_url, ref_column
from .task_files import PASTE, UPLOAD, ProjectForm, task_file_pretty


class ItemCount(TypedDict):
    """What ProjectAdmin.get_queryset adds to each project."""

    item_count: int


if TYPE_CHECKING:  # django-stubs' name for a model instance with annotations (no runtime use)
    from django_stubs_ext import WithAnnotations

    CountedProject: TypeAlias = WithAnnotations[Project, ItemCount]


class ImportForm(forms.Form):
    file = forms.FileField(
        allow_empty_file=True,  # the import service explains an empty file itself
        label="Dataset file",
        help_text="The dataset's released file, unchanged. Re-uploading a file skips items already imported.",
    )
    skip_conflicts = forms.BooleanField(
        required=False,
        label="Skip records whose id the project already has with different content",
        help_text="Off (the default): such a record refuses the whole import and is named with its line.",
    )


@admin.register(Project)
class ProjectAdmin(TeamScoped, admin.ModelAdmin):
    form = ProjectForm
    project_path = ""  # the project itself

    list_display = ("name", "team", "kind", "language", "item_count", "links")
    list_filter = ("kind", "language", ("team", OwnTeamsFilter))
    list_select_related = ("team",)
    search_fields = ("name",)
    readonly_fields = ("kind_defaults", "task_file_shown", "created_by", "created_at")
    actions = ["choose_consistency_set"]

    @admin.action(description="Choose a consistency set of 20 groups (pairs) that every annotator rates first")
    def choose_consistency_set(self, request: HttpRequest, queryset: QuerySet[Project]) -> None:
        for project in queryset:
            try:
                chosen = consistency_set_choose(project=project, size=20)
            except ValueError as exc:
                self.message_user(request, f"{project.name}: {exc}", level=messages.ERROR)
                continue
            self.message_user(
                request,
                f"{project.name}: consistency set of {len(chosen)} items saved in the settings; "
                "batches made from now on put them in a unit every annotator does first.",
            )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Project]:
        return super().get_queryset(request).annotate(item_count=Count("items"))

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A researcher in one team gets it chosen; in several, they choose."""
        return {"team": default_team_of(request.user), **super().get_changeform_initial_data(request)}

    def get_readonly_fields(self, request: HttpRequest, obj: Project | None = None) -> tuple[str, ...]:
        return ("kind", *self.readonly_fields) if obj is not None else self.readonly_fields

    def get_fieldsets(self, request: HttpRequest, obj: Project | None = None) -> Any:
        """A new project: a kind or a task file. A project with a task file: the file, and a
        place to change it."""
        main = ["name", "team", "kind", "language", "instructions", "settings"]
        if obj is None:
            return [
                (None, {"fields": main}),
                (
                    "Or: a task file",
                    {
                        "fields": [UPLOAD, PASTE],
                        "description": "A task described as data (docs/task-files.md); leave the task "
                        "kind empty. Problems of the file are shown here, each with its line.",
                    },
                ),
            ]
        sets: list[tuple[str | None, Any]] = [(None, {"fields": [*main, "kind_defaults", "created_by", "created_at"]})]
        if obj.task_file:
            sets.append(("Task file", {"fields": ["task_file_shown"]}))
            sets.append(("Change the task file", {"fields": [PASTE, UPLOAD], "classes": ["collapse"]}))
        return sets

    @admin.display(description="Kind's default settings")
    def kind_defaults(self, project: Project) -> SafeString | str:
        return pretty_json(kind_of(project).settings_for(None)) if project.kind else "—"

    @admin.display(description="Task file")
    def task_file_shown(self, project: Project) -> SafeString | str:
        return task_file_pretty(project.task_file)

    @admin.display(description="Items", ordering="item_count")
    def item_count(self, project: CountedProject) -> SafeString:
        url = reverse("admin:annotation_item_changelist") + f"?project__id__exact={project.pk}"
        return format_html('<a href="{}">{}</a>', url, project.item_count)

    @admin.display(description="Go to")
    def links(self, project: Project) -> SafeString:
        entries = [
            (reverse("admin:annotation_project_import", args=[project.pk]), "Import items"),
            (reverse("admin:annotation_batch_changelist") + f"?project__id__exact={project.pk}", "Batches"),
        ]
        for url, label in ((preview_url(project.pk), "Preview"), (quality_report_url(project.pk), "Quality report")):
            if url:
                entries.append((url, label))
        return format_html_join(" · ", '<a href="{}">{}</a>', entries)

    def save_model(self, request: HttpRequest, obj: Project, form: ProjectForm, change: bool) -> None:  # type: ignore[override]
        if change:
            super().save_model(request, obj, form, change)
            if form.task_file:
                try:
                    adopt(obj, project_task_file_change(project=obj, text=form.task_file))
                except ValueError as exc:  # annotations arrived since the form was checked
                    self.message_user(request, f"The task file was not changed: {exc}", level=messages.ERROR)
            return
        data = form.cleaned_data
        adopt(
            obj,
            project_create(
                name=data["name"],
                kind="" if form.task_file else data["kind"],
                task_file=form.task_file,
                team=data["team"],
                language=data["language"],
                instructions=data["instructions"],
                settings=data["settings"] or {},
                created_by=request.user if request.user.is_authenticated else None,
            ),
        )

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        known = object_id.isdigit()
        extra = {
            "quality_report_url": quality_report_url(int(object_id)) if known else None,
            "preview_url": preview_url(int(object_id)) if known else None,
        }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def missing_object_redirect(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """What the admin's own change page answers for an id it cannot show: a warning, then
        the admin index (the same for a deleted project and another team's)."""
        message = gettext("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?") % {
            "name": self.opts.verbose_name,
            "key": unquote(object_id),
        }
        self.message_user(request, message, messages.WARNING)
        return redirect(reverse("admin:index", current_app=self.admin_site.name))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.import_view)
        return [path("<path:object_id>/import/", view, name="annotation_project_import"), *super().get_urls()]

    def import_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Upload → items_import; any bad record imports nothing and names its line and field."""
        project = self.get_object(request, unquote(object_id))
        if project is None:
            return self.missing_object_redirect(request, object_id)
        if not self.has_change_permission(request, project):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                report = items_import_file(
                    project=project,
                    fileobj=upload,
                    size=upload.size,
                    filename=upload.name,
                    skip_conflicts=form.cleaned_data["skip_conflicts"],
                )
            except ImportProblem as exc:
                # every bad record of the file on a line of its own (`ImportProblems`)
                *found, text = str(exc).splitlines()
                message = f"{text[:1].upper()}{text[1:]}. Nothing was imported; fix the file and upload it again."
                form.add_error("file", [*found, message])
            else:
                messages.success(
                    request,
                    (
                        f"Imported {report.created} new items into “{project.name}”; {report.duplicates} were "
                        f"already there and were skipped ({report.total} records in {upload.name})."
                        + (
                            f" {report.conflicts} records whose id was taken by different content were skipped."
                            if report.conflicts
                            else ""
                        )
                        + report.annotations_note()
                    ),
                )
                return redirect(reverse("admin:annotation_item_changelist") + f"?project__id__exact={project.pk}")
        context = self._import_context(request, project, form)
        return TemplateResponse(request, "admin/annotation/project/import_items.html", context)

    def _import_context(self, request: HttpRequest, project: Project, form: ImportForm) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "title": f"Import items into “{project.name}”",
            "opts": self.opts,
            "original": project,
            "form": form,
            "kind": kind_of(project),
            "max_bytes": settings.IMPORT_MAX_BYTES,
        }


@admin.register(Item)
class ItemAdmin(TeamScoped, admin.ModelAdmin):
    """Items change only by importing; here they can be looked up and inspected."""

    list_display = (
        ref_column("external_id", "External id"),
        "project",
        ref_column("group_key", "Group"),
        ref_column("source", "Source"),
        "annotations_link",
    )

    list_filter = (("project", OwnTeamsFilter),)
    search_fields = ("external_id",)
    list_select_related = ("project",)
    fields = ("project", "external_id", "group_key", "source", "created_at", "payload_pretty")
    readonly_fields = fields

    @admin.display(description="annotations")
    def annotations_link(self, item: Item) -> SafeString:
        """The quality app's item page: the item's annotations side by side, accept or reject one."""
        url = reverse("quality:item", args=[item.project_id, item.pk])
        return format_html('<a href="{}">side by side</a>', url)

    @admin.display(description="Payload (as released)")
    def payload_pretty(self, item: Item) -> SafeString:
        return pretty_json(item.payload)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Item | None = None) -> bool:
        return False
