"""Who is working and what they answered: read-only pages; changes go through the services."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias, TypedDict

from django.contrib import admin
from django.db.models import F, QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from annotation.models import Annotator, Assignment, Response

from .common import OwnTeamsFilter, TeamScoped, breakable, pretty_json, ref_column, time_column


class ItemExternalId(TypedDict):
    """What ResponseAdmin.get_queryset adds to each response (the item's payload stays unread)."""

    item_external_id: str


if TYPE_CHECKING:  # django-stubs' name for a model instance with annotations (no runtime use)
    from django_stubs_ext import WithAnnotations

    ListedResponse: TypeAlias = WithAnnotations[Response, ItemExternalId]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows made by the annotation flow; editing them here would bypass its rules."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Annotator)
class AnnotatorAdmin(TeamScoped, ReadOnlyAdmin):
    list_display = (
        ref_column("external_id", "External id"),
        "channel",
        "project",
        "batch",
        time_column("created_at", "Joined"),
    )
    list_filter = ("channel", ("project", OwnTeamsFilter))
    list_select_related = ("project", "batch", "user")
    search_fields = ("external_id",)
    fields = ("external_id", "channel", "project", "batch", "user", "created_at")
    readonly_fields = fields


@admin.register(Assignment)
class AssignmentAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "unit__batch__project"
    list_display = (
        "id",
        ref_column("annotator", "Annotator", ordering="annotator__external_id"),
        "batch",
        "unit_position",
        "status",
        time_column("last_activity_at", "Last active"),
        time_column("submitted_at", "Submitted"),
    )
    list_filter = (
        "status",
        "confirmed",
        ("unit__batch__project", OwnTeamsFilter),
        ("unit__batch", OwnTeamsFilter),
    )
    list_select_related = ("annotator", "unit__batch")
    search_fields = ("annotator__external_id", "channel_assignment_id")
    date_hierarchy = "started_at"
    fields = (
        "annotator",
        "unit",
        "status",
        "channel_assignment_id",
        "confirmed",
        "unconfirmed_reason",
        "started_at",
        "last_activity_at",
        "submitted_at",
    )
    readonly_fields = fields

    @admin.display(description="Batch", ordering="unit__batch__name")
    def batch(self, assignment: Assignment) -> str:
        return str(assignment.unit.batch)

    @admin.display(description="Unit", ordering="unit__position")
    def unit_position(self, assignment: Assignment) -> int:
        return assignment.unit.position


class CompletedFilter(admin.SimpleListFilter):
    title = "completed"
    parameter_name = "completed"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Completed"), ("no", "In progress")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in ("yes", "no"):
            return queryset.filter(completed_at__isnull=self.value() == "no")
        return queryset


@admin.register(Response)
class ResponseAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "item__project"
    list_display = (
        "id",
        "item_external_id",
        "annotator",
        "assignment_status",
        "position",
        time_column("completed_at", "Completed"),
    )
    list_filter = (CompletedFilter, "assignment__status", ("item__project", OwnTeamsFilter))
    search_fields = ("item__external_id", "assignment__annotator__external_id")
    fields = ("assignment", "item", "position", "completed_at", "answers_pretty", "timings_pretty")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Response]:
        """Item payloads are large and not shown in the list: fetch only the ids needed."""
        return (
            super()
            .get_queryset(request)
            .select_related("assignment__annotator")
            .annotate(item_external_id=F("item__external_id"))
        )

    @admin.display(description="Item", ordering="item__external_id")
    def item_external_id(self, response: ListedResponse) -> SafeString:
        return breakable(response.item_external_id)

    @admin.display(description="Annotator", ordering="assignment__annotator__external_id")
    def annotator(self, response: Response) -> SafeString:
        return breakable(response.assignment.annotator)

    @admin.display(description="Status", ordering="assignment__status")
    def assignment_status(self, response: Response) -> str:
        return response.assignment.get_status_display()

    @admin.display(description="Answers (per page)")
    def answers_pretty(self, response: Response) -> SafeString:
        return pretty_json(response.answers)

    @admin.display(description="Time per page")
    def timings_pretty(self, response: Response) -> SafeString:
        return pretty_json(response.timings)
