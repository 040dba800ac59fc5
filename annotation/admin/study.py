"""Who went through a batch's study steps and how: consent, the comprehension check's attempts,
the exit survey, live-quality stops (which a researcher with the change permission may lift
here). Every field is read-only: the records are the annotation flow's."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from annotation.models import Participation
from annotation.services.study import study_lift_stop

from .common import OwnTeamsFilter, TeamScoped, pretty_json, ref_column, time_column


class Stopped(admin.SimpleListFilter):
    title = "live quality"
    parameter_name = "stopped"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Stopped"), ("lifted", "Stop lifted")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Participation]) -> QuerySet[Participation]:
        if self.value() == "yes":
            return queryset.filter(stopped_at__isnull=False, lifted_at__isnull=True)
        if self.value() == "lifted":
            return queryset.filter(lifted_at__isnull=False)
        return queryset


@admin.register(Participation)
class ParticipationAdmin(TeamScoped, admin.ModelAdmin):
    project_path = "batch__project"
    list_display = (
        ref_column("annotator", "Annotator", ordering="annotator__external_id"),
        "batch",
        "consent",
        "comprehension",
        time_column("stopped_at", "Stopped"),
        "stop_reason",
    )
    list_filter = ("comprehension", "consent", Stopped, ("batch", OwnTeamsFilter))
    list_select_related = ("annotator", "batch")
    search_fields = ("annotator__external_id",)
    fields = (
        "annotator",
        "batch",
        "consent",
        "consent_at",
        "comprehension",
        "comprehension_at",
        "attempts_shown",
        "exit_answers_shown",
        "exit_at",
        "stopped_at",
        "stop_reason",
        "lifted_at",
    )
    readonly_fields = fields
    actions = ["lift_stop"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the annotation flow

    @admin.display(description="Attempts (answers, which were right)")
    def attempts_shown(self, participation: Participation) -> SafeString:
        return pretty_json(participation.attempts)

    @admin.display(description="Exit survey")
    def exit_answers_shown(self, participation: Participation) -> SafeString:
        return pretty_json(participation.exit_answers)

    @admin.action(description="Lift the live-quality stop (the person may work again)", permissions=["change"])
    def lift_stop(self, request: HttpRequest, queryset: QuerySet[Participation]) -> None:
        lifted = 0
        for participation in queryset.filter(stopped_at__isnull=False, lifted_at__isnull=True):
            study_lift_stop(participation=participation)
            lifted += 1
        self.message_user(request, f"{lifted} stop(s) lifted.", messages.SUCCESS)
