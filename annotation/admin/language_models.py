"""Language models in the admin: a team's model connections (the key's environment variable,
never the key), and model runs: made as an estimate (items, tokens, cost of the calls still to
be made), run from the list after a page that shows the cost first, cancelled from the list, and
followed by their progress. A run is never edited: its calls are its record."""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import ForeignKey, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest
from django.template.response import TemplateResponse

from annotation.models import ModelConnection, ModelRun
from annotation.selectors.teams import teams_of
from annotation.services.model_runs import model_run_cancel, model_run_estimate, model_run_start

from .common import OwnTeamsFilter, TeamScoped, adopt, ref_column, time_column

CONFIRM_TEMPLATE = "admin/annotation/modelrun/run_confirm.html"


@admin.register(ModelConnection)
class ModelConnectionAdmin(TeamScoped, admin.ModelAdmin):
    """A team's own connections only (a connection belongs to a team, not to a project)."""

    list_display = ("name", "team", ref_column("model", "Model"), ref_column("base_url", "Server"), "key", "prices")
    list_filter = (("team", OwnTeamsFilter),)
    search_fields = ("name", "model")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fields = (
        "team",
        "name",
        "base_url",
        "model",
        "api_key_env",
        ("input_price", "output_price"),
        ("concurrency", "requests_per_minute"),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[ModelConnection]:
        rows = admin.ModelAdmin.get_queryset(self, request)  # by team, not through a project
        return rows.filter(team__in=teams_of(request.user)).select_related("team")

    @admin.display(description="Prices in / out")
    def prices(self, connection: ModelConnection) -> str:
        """Per million input and output tokens, in one column."""
        return f"{connection.input_price.normalize():f} / {connection.output_price.normalize():f}"

    @admin.display(description="API key")
    def key(self, connection: ModelConnection) -> str:
        """Whether the server's environment has the key: the key itself is never shown."""
        if not connection.api_key_env:
            return "none needed"
        found = "set" if os.environ.get(connection.api_key_env) else "NOT SET"
        return f"{connection.api_key_env}: {found}"


class ModelRunForm(forms.ModelForm):
    class Meta:
        model = ModelRun
        fields = ("project", "connection", "prompt")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        project, connection = data.get("project"), data.get("connection")
        if project is not None and connection is not None and connection.team_id != project.team_id:
            raise forms.ValidationError("Choose a model connection of the project's team.")
        return data


@admin.register(ModelRun)
class ModelRunAdmin(TeamScoped, admin.ModelAdmin):
    form = ModelRunForm
    list_display = ("__str__", "status", "progress", "estimate", "spent", time_column("finished_at", "Finished"))
    list_filter = ("status", ("project", OwnTeamsFilter))
    readonly_fields = (
        "status",
        "progress",
        "estimated_input_tokens",
        "estimated_output_tokens",
        "estimated_cost",
        "spent",
        "cancel_requested",
        "error",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    )
    actions = ["run_models", "cancel_runs"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ModelRun]:
        return super().get_queryset(request).select_related("project", "connection")

    def get_fields(self, request: HttpRequest, obj: ModelRun | None = None) -> Any:
        return (
            ("project", "connection", "prompt")
            if obj is None
            else ("project", "connection", "prompt", *self.readonly_fields)
        )

    def get_readonly_fields(self, request: HttpRequest, obj: ModelRun | None = None) -> Any:
        return () if obj is None else ("project", "connection", "prompt", *self.readonly_fields)

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any) -> ModelChoiceField:
        if db_field.related_model is ModelConnection:
            kwargs["queryset"] = ModelConnection.objects.filter(team__in=teams_of(request.user))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: ModelRun, form: Any, change: bool) -> None:
        """A new run is an estimate (nothing is called yet); a run is never changed."""
        if not change:
            adopt(
                obj,
                model_run_estimate(project=obj.project, connection=obj.connection, prompt=obj.prompt, by=request.user),
            )

    def has_spend_permission(self, request: HttpRequest) -> bool:
        """Running a model costs money: the run's add permission and `spend_on_channel`."""
        return request.user.has_perms(["annotation.add_modelrun", "annotation.spend_on_channel"])

    @admin.display(description="Estimate", ordering="estimated_cost")
    def estimate(self, run: ModelRun) -> Decimal:
        return run.estimated_cost

    @admin.display(description="Progress")
    def progress(self, run: ModelRun) -> str:
        invalid = f", {run.items_invalid} invalid" if run.items_invalid else ""
        return f"{run.items_done} / {run.items_total}{invalid}"

    @admin.action(description="Run the chosen models (shows the cost first)", permissions=["spend"])
    def run_models(self, request: HttpRequest, queryset: QuerySet[ModelRun]) -> TemplateResponse | None:
        runs = list(queryset.select_related("project", "connection"))
        if not runs:
            return None
        if request.POST.get("post") == "yes":
            for run in runs:
                run = model_run_start(run=run)
                messages.success(request, f"“{run}” is queued; its row shows the progress.")
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Run the models",
            "action": "run_models",
            "selected": [str(run.pk) for run in runs],
            "runs": runs,
            "total": sum(run.estimated_cost for run in runs),
        }
        return TemplateResponse(request, CONFIRM_TEMPLATE, context)

    @admin.action(description="Cancel the chosen runs", permissions=["add"])
    def cancel_runs(self, request: HttpRequest, queryset: QuerySet[ModelRun]) -> None:
        for run in queryset:
            run = model_run_cancel(run=run)
            messages.success(request, f"“{run}”: asked to stop before its next calls.")
