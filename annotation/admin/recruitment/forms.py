"""The forms of the batch admin's recruiting actions, and the batch change form whose channel
checks the batch's settings before they are saved."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.channels import Channel, ChannelSettingsError, get_channel
from annotation.kinds import PresetError, kind_of, preset_fill, preset_for_channel
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
                preset = preset_for_channel(kind_of(self.instance.project), self.instance.channel)
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
    """The review of the chosen batches' work: only the operations and fields their channels
    offer (`Channel.review_rules`; every chosen batch's channel must offer an operation), and the
    channels' rules on the texts checked here, before anything is sent."""

    OPERATIONS = {
        "review": "Approve the kept annotators' work, reject the dropped annotators' work",
        "reject_unverified": "Reject unverified submissions (forged, or not done on our pages) before the "
        "recruiting site approves them",
        "bonus": "Pay a bonus",
        "message": "Send a message",
        "block": "Block workers",
        "grant": "Grant the private qualification",
    }
    operation = forms.ChoiceField(choices=(), widget=forms.RadioSelect)
    who = forms.ChoiceField(
        choices=[("kept", "kept annotators"), ("dropped", "dropped annotators"), ("all", "every verified worker")],
        initial="kept",
        help_text="Whom a bonus, message, block or qualification goes to.",
    )
    reject_feedback = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=4096,
        help_text="Required to reject: the recruiting site shows it to the worker.",
    )
    rejection_category = forms.ChoiceField(
        required=False, help_text="The recruiting site's reason for the rejection; empty: the batch's setting."
    )
    approve_feedback = forms.CharField(required=False, max_length=4096)
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
    NEEDED = {
        "review": ["reject_feedback"],
        "reject_unverified": ["reject_feedback"],
        "bonus": ["amount", "text", "label"],
        "message": ["subject", "text"],
        "block": ["text"],
        "grant": [],
    }

    def __init__(self, *args: Any, channels: list[Channel], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.channels = list({channel.slug: channel for channel in channels}.values())
        offered = [
            op
            for op in self.OPERATIONS
            if self.channels and all(op in c.review_rules.operations for c in self.channels)
        ]
        self._choices("operation", [(op, self.OPERATIONS[op]) for op in offered])
        self.fields["operation"].initial = offered[0] if offered else None
        rules = [c.review_rules for c in self.channels]
        _explain_lengths(
            self.fields["reject_feedback"],
            [(c.short_title, r.reject_feedback_min) for c, r in zip(self.channels, rules)],
        )
        categories = sorted({category for r in rules for category in r.rejection_categories})
        if categories:
            self._choices("rejection_category", [("", "the batch's setting")] + [(c, c) for c in categories])
        else:
            del self.fields["rejection_category"]
        if not any(r.approve_feedback for r in rules):
            del self.fields["approve_feedback"]  # the channel passes no text on with an approval
        if "message" not in offered:
            del self.fields["subject"]
        if not {"bonus", "message", "block", "grant"} & set(offered):
            for name in ("who", "text"):
                del self.fields[name]
        if "bonus" not in offered:
            for name in ("amount", "label"):
                del self.fields[name]
        elif "message" not in offered and "block" not in offered and "text" in self.fields:
            self.fields["text"].label, self.fields["text"].help_text = "Bonus reason", "The bonus reason."

    def _choices(self, name: str, choices: list[tuple[str, str]]) -> None:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        field.choices = choices

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        op = data.get("operation") or ""
        for name in self.NEEDED.get(op, []):
            if not data.get(name):
                self.add_error(name, "Needed for this operation.")
        for channel in self.channels:  # the channel's own rules, before any call
            for name, why in channel.review_rules.problems(op, data, channel=channel.short_title).items():
                if name in self.fields and name not in self.errors:
                    self.add_error(name, why[0].upper() + why[1:] + ".")
        return data


def _explain_lengths(field: forms.Field, minimums: list[tuple[str, int]]) -> None:
    """Say in the field's help how long a channel wants its text, where it wants more than one character."""
    wanted = [f"{name}: at least {low} characters" for name, low in minimums if low > 1]
    if wanted:
        field.help_text = f"{field.help_text} {'; '.join(wanted)}."
