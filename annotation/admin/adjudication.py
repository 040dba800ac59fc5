"""The adjudication stage in the admin: on a batch's page, whether it is on and which logins may
adjudicate (written by `adjudication_setup_set`), and read-only lists of the tasks and final
labels (made by the annotation flow and the adjudicators)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from annotation.models import AdjudicationSetup, AdjudicationTask, FinalLabel
from annotation.services.adjudication import adjudication_setup_set

from .common import OwnTeamsFilter, TeamScoped, breakable, pretty_json, ref_column, time_column
from .work import ReadOnlyAdmin


class AdjudicationSetupForm(forms.ModelForm):
    class Meta:
        model = AdjudicationSetup
        fields = ["enabled", "users"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """A batch without the stage shows it off, so ticking "enabled" is a change to save."""
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.initial["enabled"] = False


class AdjudicationSetupInline(admin.StackedInline):
    model = AdjudicationSetup
    form = AdjudicationSetupForm
    extra = 1
    max_num = 1
    can_delete = False
    verbose_name = verbose_name_plural = (
        "Adjudication (a third person resolves the first two annotators' disagreements)"
    )


class AdjudicationSetupSaving:
    """BatchAdmin's side of the inline: the stage is written by the service, not the formset."""

    def save_formset(self, request: HttpRequest, form: forms.ModelForm, formset: Any, change: bool) -> None:
        if formset.model is not AdjudicationSetup:
            super().save_formset(request, form, formset, change)  # type: ignore[misc]
            return
        formset.save(commit=False)  # the admin's change message reads what changed; nothing is written
        for setup_form in formset.forms:
            if setup_form.has_changed() and setup_form.cleaned_data:
                adjudication_setup_set(
                    batch=form.instance,
                    enabled=setup_form.cleaned_data["enabled"],
                    users=setup_form.cleaned_data["users"],
                )


@admin.register(AdjudicationTask)
class AdjudicationTaskAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        ref_column("item", "Item", ordering="item__external_id"),
        "batch",
        "status",
        ref_column("adjudicator", "Adjudicator", ordering="adjudicator__external_id"),
        "disputed",
        time_column("decided_at", "Decided"),
    )
    list_filter = ("status", ("batch__project", OwnTeamsFilter), ("batch", OwnTeamsFilter))
    list_select_related = ("item", "batch", "adjudicator")
    search_fields = ("item__external_id", "adjudicator__external_id")
    fields = (
        "item",
        "batch",
        "status",
        "adjudicator",
        "disputed",
        "answers_pretty",
        "first_response",
        "second_response",
        "created_at",
        "claimed_at",
        "decided_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[AdjudicationTask]:
        return super().get_queryset(request).defer("item__payload")

    @admin.display(description="Disputed")
    def disputed(self, task: AdjudicationTask) -> str:
        return ", ".join(task.fields_in_dispute)

    @admin.display(description="The adjudicator's values")
    def answers_pretty(self, task: AdjudicationTask) -> SafeString:
        return pretty_json(task.answers)


@admin.register(FinalLabel)
class FinalLabelAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        ref_column("item", "Item", ordering="item__external_id"),
        "batch",
        "field",
        "how",
        "value_short",
        ref_column("decided_by", "Decided by", ordering="decided_by__external_id"),
        "reason",
    )
    list_filter = ("how", ("batch__project", OwnTeamsFilter), ("batch", OwnTeamsFilter))
    list_select_related = ("item", "batch", "decided_by")
    search_fields = ("item__external_id", "field")
    fields = ("item", "batch", "field", "how", "value_pretty", "decided_by", "reason", "created_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[FinalLabel]:
        return super().get_queryset(request).defer("item__payload")

    @admin.display(description="Value")
    def value_pretty(self, label: FinalLabel) -> SafeString:
        return pretty_json(label.value)

    @admin.display(description="Value")
    def value_short(self, label: FinalLabel) -> SafeString:
        """On one line in the list (the page shows it indented), breakable: a span or a list of
        sentence numbers has no spaces to wrap at."""
        return breakable(json.dumps(label.value, ensure_ascii=False))
