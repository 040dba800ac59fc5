"""Batches (made by `batch_create`), their progress, and the invite links that hand them out."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from annotation.channels import ChannelSettingsError, channel_choices
from annotation.kinds import PresetError, kind_of, preset_fill, preset_for_channel
from annotation.models import Batch, InviteLink, Item, Role
from annotation.selectors import batches_with_progress, invite_url, progress_of
from annotation.services.adaptive import labels_saved
from annotation.services.assignments import assignments_release_abandoned
from annotation.services.batches import (
    ADAPTIVE_FIELDS,
    batch_create,
    channel_settings_check,
    invite_link_create,
    study_change_problem,
    study_check,
    study_project_problem,
)
from annotation.studies import StudyFileError

from .adjudication import AdjudicationSetupInline, AdjudicationSetupSaving
from .calls import RecruitingStatus
from .common import OwnTeamsFilter, TeamScoped, adopt, invite_link_column, request_base_url
from .recruitment import RecruitmentActions
from .recruitment.forms import BatchSettingsForm

DEFAULT_ITEMS_PER_UNIT = 5


KEPT_WHEN_MISSING = ("min_annotators", "max_annotators", "target_confidence")


class HandoutOptional(forms.ModelForm):
    """A post without the hand-out order keeps the batch's (a new one: overlap first), one without
    the pilot makes none: forms written before the two settings still work."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in {"handout", "pilot_items", *KEPT_WHEN_MISSING} & set(self.fields):
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        """A post without an adaptive number keeps the batch's (forms written before them)."""
        data = super().clean() or self.cleaned_data
        for name in KEPT_WHEN_MISSING:
            if name in self.fields and data.get(name) is None:
                data[name] = getattr(self.instance, name)
        return data

    def clean_handout(self) -> str:
        return self.cleaned_data.get("handout") or self.instance.handout

    def clean_pilot_items(self) -> int:
        return self.cleaned_data.get("pilot_items") or 0

    def clean_study(self) -> str:
        """The study file checked as a whole: every mistake with its key path and line."""
        text = (self.cleaned_data.get("study") or "").strip()
        try:
            study_check(text)
        except StudyFileError as exc:
            raise forms.ValidationError([str(p) for p in exc.problems]) from exc
        project = self.cleaned_data.get("project") or getattr(self.instance, "project", None)
        problem = study_change_problem(self.instance, text) or (project and study_project_problem(project, text))
        if problem:
            raise forms.ValidationError(problem)
        return text + "\n" if text else ""


class BatchChangeForm(HandoutOptional, BatchSettingsForm):
    pass


class BatchCreateForm(HandoutOptional):
    items_per_unit = forms.IntegerField(
        min_value=1,
        required=False,
        label="Items per unit",
        help_text=f"How many items one annotator gets at a time (one unit). Empty: the preset's, else {DEFAULT_ITEMS_PER_UNIT}.",
    )
    assignments_per_unit = forms.IntegerField(
        min_value=1,
        required=False,
        label="Distinct annotators per item",
        help_text="Each item is annotated by this many different people; nobody sees an item twice. "
        "Empty: the number the kind's paper used for the project's language (the kind's suggested annotators per item).",
    )
    release_after_minutes = forms.IntegerField(
        min_value=1,
        initial=60,
        label="Release after (minutes)",
        help_text="Work left idle this long goes back to the pool for somebody else.",
    )
    channel = forms.ChoiceField(
        choices=channel_choices, initial="invite", help_text="How annotators are recruited for this batch."
    )
    use_preset = forms.BooleanField(
        required=False,
        label="Use the kind's preset",
        help_text="Fill the channel settings and items per unit from the project's kind's preset for this channel "
        "(e.g. a paper's worker qualifications); values typed here are kept.",
    )
    external_ids = forms.CharField(
        required=False,
        label="Only these items",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="External ids, one per line, in the order to hand them out. Empty: every item of the project.",
    )

    class Meta:
        model = Batch
        fields = [
            "project",
            "name",
            "items_per_unit",
            "assignments_per_unit",
            "release_after_minutes",
            "handout",
            "pilot_items",
            "channel",
            "channel_settings",
            "study",
            *ADAPTIVE_FIELDS,
        ]
        widgets = {"study": forms.Textarea(attrs={"rows": 12, "cols": 90, "class": "study-file"})}

    def clean(self) -> dict[str, Any]:
        """Resolve the listed ids to the project's items; say which ones are not there."""
        super().clean()
        data = self.cleaned_data
        project, text = data.get("project"), data.get("external_ids", "")
        if project is None:
            return data
        if not data.get("assignments_per_unit"):
            data["assignments_per_unit"] = kind_of(project).suggested_annotators_per_item(project.language)
        self._fill_channel(project, data)
        wanted = [line.strip() for line in text.splitlines() if line.strip()]
        if data.get("pilot_items", 0) >= (len(wanted) or project.items.count() or 1):
            self.add_error("pilot_items", "The pilot must leave items for the rest of the batch.")
        if not wanted:
            data["items"] = None
            if not project.items.exists():
                self.add_error("project", "This project has no items yet: import items first.")
            return data
        rows = Item.objects.filter(project=project, external_id__in=wanted).only("id", "external_id")
        found = {item.external_id: item for item in rows}
        missing = [e for e in wanted if e not in found]
        if missing:
            self.add_error("external_ids", f"Not in this project: {', '.join(missing[:20])}")
        elif len(set(wanted)) != len(wanted):
            self.add_error("external_ids", "An item is listed twice.")
        data["items"] = [found[e] for e in wanted if e in found]
        return data

    def _fill_channel(self, project: Any, data: dict[str, Any]) -> None:
        """The kind's preset under the typed values (when asked for), then the channel's check."""
        channel, typed = data.get("channel"), data.get("channel_settings") or {}
        if channel is None:
            return
        if data.get("use_preset"):
            try:
                preset = preset_for_channel(kind_of(project), channel)
            except PresetError as exc:
                self.add_error("use_preset", str(exc))
                return
            typed, data["items_per_unit"] = preset_fill(
                preset, channel_settings=typed, items_per_unit=data.get("items_per_unit")
            )
        data["channel_settings"] = typed
        data["items_per_unit"] = data.get("items_per_unit") or DEFAULT_ITEMS_PER_UNIT
        try:
            channel_settings_check(project=project, channel=channel, channel_settings=typed)
        except ChannelSettingsError as exc:
            self.add_error("channel_settings", str(exc))


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
        "released",
        "created_at",
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
            ),
        )

    @admin.display(description="Units", ordering="progress_units")
    def units(self, batch: Batch) -> int:
        return progress_of(batch)["units"]

    @admin.display(description="Slots (units × annotators)")
    def slots(self, batch: Batch) -> int:
        return progress_of(batch)["slots"]

    @admin.display(description="Working", ordering="progress_active")
    def active(self, batch: Batch) -> int:
        return progress_of(batch)["active"]

    @admin.display(description="Submitted", ordering="progress_submitted")
    def submitted(self, batch: Batch) -> int:
        return progress_of(batch)["submitted"]

    @admin.display(description="Released (abandoned)", ordering="progress_released")
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
        return (
            f"{n['labels_given']} labels so far; fixed redundancy would cost {n['fixed_labels']}. "
            f"{n['items_settled']} items settled, {n['saved_on_settled']} labels saved on them."
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
    list_display = ("__str__", "batch", "active", "max_annotators", "created_at")
    list_filter = ("active", ("batch__project", OwnTeamsFilter))
    list_select_related = ("batch",)
    search_fields = ("label", "token")
    fields = ("batch", "label", "max_annotators", "active", "created_at")

    def get_list_display(self, request: HttpRequest) -> tuple:
        return (*self.list_display, invite_link_column(request))

    def get_fields(self, request: HttpRequest, obj: InviteLink | None = None) -> tuple:
        return (*self.fields, invite_link_column(request)) if obj is not None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: InviteLink | None = None) -> tuple:
        return ("batch", "created_at", invite_link_column(request)) if obj is not None else ("created_at",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the batch action or the API, through the service
