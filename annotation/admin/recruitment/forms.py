"""The forms of the batch admin's recruiting actions, and the batch change form whose channel
checks the batch's settings before they are saved."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.channels import ChannelSettingsError, get_channel
from annotation.kinds import PresetError, get_kind, preset_fill, preset_for_channel
from annotation.models import Batch
from annotation.services.batches import channel_settings_check


class BatchSettingsForm(forms.ModelForm):
    """The batch change form: the batch's channel checks its settings before they are saved."""

    class Meta:
        model = Batch
        fields = "__all__"  # noqa: DJ007 - the BatchAdmin's fieldsets choose what is shown

    use_preset = forms.BooleanField(
        required=False,
        label="Use the kind's preset",
        help_text="Fill the channel settings from the project's kind's preset for this channel (e.g. a paper's "
        "worker qualifications); keys already set here are kept. Items per unit are fixed once the batch exists.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "channel_settings" in self.fields and self.instance.channel:
            self.fields["channel_settings"].help_text = get_channel(self.instance.channel).settings_help

    def clean_channel_settings(self) -> dict[str, Any]:
        value = self.cleaned_data.get("channel_settings") or {}
        if self["use_preset"].data:  # the checkbox as posted (it is cleaned after this field)
            try:
                preset = preset_for_channel(get_kind(self.instance.project.kind), self.instance.channel)
            except PresetError as exc:
                raise forms.ValidationError(str(exc)) from exc
            value, _ = preset_fill(preset, channel_settings=value, items_per_unit=None)
        try:
            channel_settings_check(project=self.instance.project, channel=self.instance.channel, channel_settings=value)
        except ChannelSettingsError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return value


class ExtendForm(forms.Form):
    hours = forms.IntegerField(
        min_value=1,
        max_value=365 * 24,
        initial=24,
        help_text="Added to the later of now and each posting's expiration.",
    )


class PositionsField(forms.CharField):
    def clean(self, value: str) -> list[int] | None:
        text = super().clean(value).replace(",", " ").split()
        try:
            return [int(p) for p in text] or None
        except ValueError:
            raise forms.ValidationError("Unit positions are whole numbers, e.g. 0 3 4.") from None


class AddAssignmentsForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=100, initial=1, help_text="More annotators per chosen unit.")
    positions = PositionsField(
        required=False,
        label="Units",
        help_text="Unit positions (e.g. 0 3 4) of the block to re-annotate; empty: every unit.",
    )
    label = forms.CharField(max_length=60, help_text="Names this request: sending the same label again adds nothing.")


class ReviewForm(forms.Form):
    OPERATIONS = [
        ("review", "Approve the kept annotators' work, reject the dropped annotators' work"),
        (
            "reject_unverified",
            "Reject unverified submissions (forged, or not done on our pages) before the recruiting site approves them",
        ),
        ("bonus", "Pay a bonus"),
        ("message", "Send a message"),
        ("block", "Block workers"),
        ("grant", "Grant the private qualification"),
    ]
    operation = forms.ChoiceField(choices=OPERATIONS, widget=forms.RadioSelect, initial="review")
    who = forms.ChoiceField(
        choices=[("kept", "kept annotators"), ("dropped", "dropped annotators"), ("all", "every verified worker")],
        initial="kept",
        help_text="Whom a bonus, message, block or qualification goes to.",
    )
    reject_feedback = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=1024,
        help_text="Required to reject: the recruiting site shows it to the worker.",
    )
    approve_feedback = forms.CharField(required=False, max_length=1024)
    amount = forms.DecimalField(
        required=False,
        min_value=0.01,
        decimal_places=2,
        max_digits=6,
        label="Bonus",
        help_text="Per participant, in the recruiting site's currency (the one the publish page shows).",
    )
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=4096,
        label="Reason / message",
        help_text="The bonus reason, the message, or the block reason.",
    )
    subject = forms.CharField(required=False, max_length=200, help_text="Subject of a message.")
    label = forms.CharField(
        required=False,
        max_length=60,
        initial="bonus",
        help_text="Names a bonus: the same label never pays a worker twice.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        op = data.get("operation") or ""
        needed = {
            "review": ["reject_feedback"],
            "reject_unverified": ["reject_feedback"],
            "bonus": ["amount", "text", "label"],
            "message": ["subject", "text"],
            "block": ["text"],
            "grant": [],
        }.get(op, [])
        for name in needed:
            if not data.get(name):
                self.add_error(name, "Needed for this operation.")
        return data
