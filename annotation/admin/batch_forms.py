"""The batch admin's forms: the add form (made through `batch_create`, with the kind's preset and
the listed items) and the change form (channel settings), both keeping the batch's values of
settings an older form does not post."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.channels import ChannelSettingsError, channel_choices
from annotation.kinds import PresetError, kind_of, preset_fill, preset_for_channel
from annotation.models import Batch, Item
from annotation.services.batches import (
    ADAPTIVE_FIELDS,
    SUGGESTION_FIELDS,
    channel_settings_check,
    study_change_problem,
    study_check,
    study_project_problem,
    suggestions_problem,
)
from annotation.studies import StudyFileError
from annotation.validators import LoaderDecoder

from .recruitment.forms import BatchSettingsForm

DEFAULT_ITEMS_PER_UNIT = 5


KEPT_WHEN_MISSING = ("min_annotators", "max_annotators", "target_confidence")


class HandoutOptional(forms.ModelForm):
    """A post without the hand-out order keeps the batch's (a new one: overlap first), one without
    the pilot makes none: forms written before the two settings still work. The channel settings
    are read by the one loader (NUL, a lone surrogate, NaN or deep nesting: the field's error)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in {"handout", "pilot_items", *KEPT_WHEN_MISSING} & set(self.fields):
            self.fields[name].required = False
        channel_settings = self.fields.get("channel_settings")
        if isinstance(channel_settings, forms.JSONField):
            channel_settings.decoder = LoaderDecoder

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


class ModelSuggestions(forms.ModelForm):
    """The batch's model (one of its project's team's connections) and how its labels are shown to
    annotators; a post without them keeps the batch's (forms written before them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "suggestions" in self.fields:
            self.fields["suggestions"].required = False
        project = getattr(self.instance, "project", None) if self.instance.project_id else None
        if "model" in self.fields and project is not None:
            field = self.fields["model"]
            field.queryset = field.queryset.filter(team_id=project.team_id)  # type: ignore[attr-defined]

    def clean_suggestions(self) -> str:
        return self.cleaned_data.get("suggestions") or self.instance.suggestions

    def clean_model(self) -> Any:
        """A post without the field keeps the batch's model (an empty choice clears it)."""
        return self.cleaned_data.get("model") if "model" in self.data else self.instance.model

    def _check_suggestions(self, data: dict[str, Any]) -> None:
        project = data.get("project") or (self.instance.project if self.instance.project_id else None)
        if project is None or "suggestions" not in self.fields:
            return
        model, mode = data.get("model"), data.get("suggestions") or "off"
        if problem := suggestions_problem(project=project, model=model, suggestions=mode):
            self.add_error("model" if model is not None or mode != "off" else "suggestions", problem)


class BatchChangeForm(ModelSuggestions, HandoutOptional, BatchSettingsForm):
    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._check_suggestions(data)
        return data


class BatchCreateForm(ModelSuggestions, HandoutOptional):
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
            *SUGGESTION_FIELDS,
        ]
        widgets = {"study": forms.Textarea(attrs={"rows": 12, "cols": 90, "class": "study-file"})}

    def clean(self) -> dict[str, Any]:
        """Resolve the listed ids to the project's items; say which ones are not there."""
        super().clean()
        data = self.cleaned_data
        project, text = data.get("project"), data.get("external_ids", "")
        if project is None:
            return data
        self._check_suggestions(data)
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
