"""Batches (made by `batch_create`), their progress, and the invite links that hand them out."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.safestring import SafeString

from annotation.models import Batch, InviteLink, Role
from annotation.selectors.batches import batches_with_progress, invite_url, labels_saved, model_estimate, progress_of
from annotation.services.assignments import assignments_release_abandoned
from annotation.services.batches import (
    ADAPTIVE_FIELDS,
    SUGGESTION_FIELDS,
    batch_create,
    invite_link_create,
)

from .adjudication import AdjudicationSetupInline, AdjudicationSetupSaving
from .batch_forms import BatchChangeForm, BatchCreateForm
from .calls import RecruitingStatus
from .common import OwnTeamsFilter, TeamScoped, adopt, breakable, invite_link_column, request_base_url
from .recruitment import RecruitmentActions


def model_vote_text(batch: Batch) -> str:
    """The model's vote in an adaptive batch and its estimated competence ("" without a vote)."""
    if not batch.model_votes or batch.model_id is None:
        return ""
    estimate = model_estimate(batch)
    if estimate is None:
        return f" The model {batch.model} votes once people have labelled items it labelled."
    gold = f" and {estimate.gold} gold item{'' if estimate.gold == 1 else 's'}" if estimate.gold else ""
    return (
        f" The model {batch.model} votes, its estimated competence {estimate.competence:.2f} (MACE, as a person's; "
        f"1 = always knows, 0 = guesses) from {estimate.items} item{'' if estimate.items == 1 else 's'} "
        f"people labelled too{gold}."
        + (
            ""
            if estimate.counted
            else " Its vote does not count: the spammer rule judged it below the minimum competence."
        )
    )


class InviteLinkInline(admin.TabularInline):
    model = InviteLink
    extra = 0
    fields = ("label", "max_annotators", "active", "created_at")
    verbose_name_plural = "Invite links (create one with the “Create invite link” action on the batch list)"

    def get_readonly_fields(self, request: HttpRequest, obj: Batch | None = None) -> tuple:
        return ("created_at", invite_link_column(request))

    def get_fields(self, request: HttpRequest, obj: Batch | None = None) -> tuple:
        return (*self.fields, invite_link_column(request))

    def has_add_permission(self, request: HttpRequest, obj: Batch | None = None) -> bool:
        return False


@admin.register(Batch)
class BatchAdmin(TeamScoped, AdjudicationSetupSaving, RecruitmentActions, RecruitingStatus, admin.ModelAdmin):
    form, add_form = BatchChangeForm, BatchCreateForm
    list_display = (
        "name",
        "project",
        "channel",
        "status",
        "units",
        "slots",
        "active",
        "submitted",
    )
    list_filter = ("status", "channel", ("project", OwnTeamsFilter))
    list_select_related = ("project",)
    search_fields = ("name",)
    actions = [
        "create_invite_link",
        "create_adjudicator_link",
        "release_abandoned",
        *RecruitmentActions.recruiting_actions,
    ]
    readonly_fields = (
        "project",
        "channel",
        "items_per_unit",
        "assignments_per_unit",
        "pilot_items",
        "progress",
        "labels_saved",
        "recruitment_status",
        "call_log",
        "created_at",
    )
    fields = (
        "project",
        "name",
        "status",
        "channel",
        "items_per_unit",
        "assignments_per_unit",
        "release_after_minutes",
        "handout",
        "pilot_items",
        "progress",
        *ADAPTIVE_FIELDS,
        *SUGGESTION_FIELDS,
        "labels_saved",
        "channel_settings",
        "use_preset",
        "study",
        "recruitment_status",
        "call_log",
        "created_at",
    )
    inlines = [InviteLinkInline, AdjudicationSetupInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Batch]:
        return batches_with_progress(super().get_queryset(request))

    def get_form(
        self, request: HttpRequest, obj: Batch | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm]:
        if obj is None:
            kwargs["form"] = self.add_form
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Batch | None = None) -> tuple:
        if obj is None:
            return (*BatchCreateForm.Meta.fields, "use_preset", "external_ids")
        return self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: Batch | None = None) -> tuple:
        return self.readonly_fields if obj is not None else ()

    def get_inlines(self, request: HttpRequest, obj: Batch | None) -> list:
        return self.inlines if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Batch, form: forms.ModelForm, change: bool) -> None:
        """New batches come from the service, which splits the items into units."""
        if change:
            super().save_model(request, obj, form, change)
            return
        data = form.cleaned_data
        adopt(
            obj,
            batch_create(
                project=data["project"],
                name=data["name"],
                items=data["items"],
                items_per_unit=data["items_per_unit"],
                assignments_per_unit=data["assignments_per_unit"],
                release_after_minutes=data["release_after_minutes"],
                handout=data["handout"],
                pilot_items=data["pilot_items"],
                channel=data["channel"],
                channel_settings=data["channel_settings"],
                study=data.get("study", ""),
                adaptive={name: data[name] for name in ADAPTIVE_FIELDS} if data.get("adaptive") else None,
                model=data.get("model"),
                suggestions=data.get("suggestions") or "off",
            ),
        )

    @admin.display(description="Units", ordering="progress_units")
    def units(self, batch: Batch) -> int:
        return progress_of(batch)["units"]

    @admin.display(description="Slots")  # units × annotators
    def slots(self, batch: Batch) -> int:
        return progress_of(batch)["slots"]

    @admin.display(description="Working", ordering="progress_active")
    def active(self, batch: Batch) -> int:
        return progress_of(batch)["active"]

    @admin.display(description="Submitted", ordering="progress_submitted")
    def submitted(self, batch: Batch) -> int:
        return progress_of(batch)["submitted"]

    @admin.display(description="Released", ordering="progress_released")  # abandoned, handed out again
    def released(self, batch: Batch) -> int:
        return progress_of(batch)["released"]

    @admin.display(description="Progress")
    def progress(self, batch: Batch) -> str:
        p = progress_of(batch)
        return (
            f"{p['submitted']} of {p['slots']} slots submitted, {p['active']} being worked on, "
            f"{p['released']} released after being abandoned ({p['units']} units)."
        )

    @admin.display(description="labels saved (adaptive redundancy)")
    def labels_saved(self, batch: Batch) -> str:
        if not batch.adaptive:
            return "Adaptive redundancy is off: every item gets the annotators per item."
        n = labels_saved(batch)
        settled = n["items_settled"]
        return (
            f"{n['labels_given']} human labels so far; fixed redundancy would cost {n['fixed_labels']} "
            f"({batch.assignments_per_unit} an item). {settled} item{'' if settled == 1 else 's'} settled, "
            f"{n['saved_on_settled']} labels saved on them.{model_vote_text(batch)}"
        )

    @admin.action(description="Create invite link", permissions=["change"])
    def create_invite_link(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse:
        """One new link per selected invite batch, shown ready to copy."""
        rows = []
        for batch in queryset.select_related("project"):
            if batch.channel != "invite":
                messages.warning(request, f"“{batch}” is published on {batch.channel}, not by invite link.")
                continue
            rows.append(self._new_link(request, batch, role=Role.ANNOTATOR))
        return self._links_page(request, rows, title="Invite links")

    @admin.action(description="Create adjudicator link (one person)", permissions=["change"])
    def create_adjudicator_link(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse:
        """A link for the third person who resolves the batch's disagreements, whatever channel
        recruited its annotators; only where the batch's adjudication stage is on."""
        rows = []
        for batch in queryset.select_related("project", "adjudication"):
            setup = getattr(batch, "adjudication", None)
            if setup is None or not setup.enabled:
                messages.warning(request, f"“{batch}” has no adjudication stage: turn it on in the batch's page first.")
                continue
            rows.append(self._new_link(request, batch, role=Role.ADJUDICATOR, max_annotators=1))
        return self._links_page(request, rows, title="Adjudicator links", adjudicator=True)

    def _new_link(self, request: HttpRequest, batch: Batch, *, role: str, max_annotators: int | None = None) -> dict:
        label = f"{'adjudicator' if role == Role.ADJUDICATOR else 'admin'} {timezone.now():%Y-%m-%d %H:%M}"
        invite = invite_link_create(batch=batch, label=label, role=role, max_annotators=max_annotators)
        return {"batch": batch, "invite": invite, "url": invite_url(invite.token, base_url=request_base_url(request))}

    def _links_page(
        self, request: HttpRequest, rows: list[dict], *, title: str, adjudicator: bool = False
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "rows": rows,
            "adjudicator": adjudicator,
        }
        return TemplateResponse(request, "admin/annotation/batch/invite_links.html", context)

    @admin.action(description="Release abandoned assignments", permissions=["change"])
    def release_abandoned(self, request: HttpRequest, queryset: QuerySet[Batch]) -> None:
        """What the periodic sweep does, now: idle work goes back to the pool."""
        released = sum(assignments_release_abandoned(batch=batch) for batch in queryset)
        messages.success(request, f"Released {released} abandoned assignment(s).")


@admin.register(InviteLink)
class InviteLinkAdmin(TeamScoped, admin.ModelAdmin):
    project_path = "batch__project"
    list_display = ("name", "batch", "active", "limit")
    list_filter = ("active", ("batch__project", OwnTeamsFilter))
    list_select_related = ("batch",)
    search_fields = ("label", "token")
    fields = ("batch", "label", "max_annotators", "active", "created_at")

    def get_list_display(self, request: HttpRequest) -> tuple:
        return (*self.list_display, invite_link_column(request, "Invite link"))

    @admin.display(description="Invite", ordering="label")
    def name(self, invite: InviteLink) -> SafeString:
        return breakable(invite)  # the token when it has no label

    @admin.display(description="Limit", ordering="max_annotators")
    def limit(self, invite: InviteLink) -> int | None:
        """The most annotators the link lets in (empty: no limit)."""
        return invite.max_annotators

    def get_fields(self, request: HttpRequest, obj: InviteLink | None = None) -> tuple:
        return (*self.fields, invite_link_column(request)) if obj is not None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: InviteLink | None = None) -> tuple:
        return ("batch", "created_at", invite_link_column(request)) if obj is not None else ("created_at",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the batch action or the API, through the service
