"""Forms of the quality pages: what a researcher asks of an export or a Hub folder; their verdict on
one annotation."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from annotation.models import Project
from quality.exports import FORMATS, Options, offered_datasets
from quality.exports.hub import HubOptions, SplitError, SplitPlan
from quality.models import ResearcherDecision


class ExportForm(forms.Form):
    """Dataset, format and options of an export (a background job, or a download at once)."""

    dataset = forms.ChoiceField()
    format = forms.ChoiceField(choices=[(name, name.upper()) for name in FORMATS])
    spreadsheet_safe = forms.BooleanField(
        required=False,
        label="Safe for spreadsheets",
        help_text="CSV/TSV: a text cell starting with =, +, -, @, tab or CR gets a leading ' so a spreadsheet "
        "does not run it as a formula. Off: every cell exactly as stored.",
    )
    item_text = forms.BooleanField(
        required=False,
        label="With the item's text",
        help_text="Raw and clean: each annotation carries the text it annotates.",
    )

    def __init__(self, *args: Any, project: Project, **kwargs: Any):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["dataset"]).choices = [(name, name) for name in offered_datasets(project)]

    def options(self) -> Options:
        return Options(spreadsheet_safe=self.cleaned_data["spreadsheet_safe"], item_text=self.cleaned_data["item_text"])


class ResearcherDecisionForm(forms.Form):
    """Accept or reject one annotation of the item page, with a note (needed to reject)."""

    response = forms.IntegerField(widget=forms.HiddenInput)
    decision = forms.ChoiceField(choices=ResearcherDecision.Decision.choices)
    note = forms.CharField(required=False, max_length=2000, widget=forms.TextInput(attrs={"size": 40}))


class HubFolderForm(forms.Form):
    """A Hub dataset folder as an export job (docs/publishing.md): the split rule, the licence
    and the task categories, as the command's `--dataset hub` options take them."""

    split_by = forms.ChoiceField(
        choices=[("", "One split"), ("batch", "By batch"), ("key", "By an item key")],
        required=False,
        label="Splits",
    )
    split_key = forms.CharField(required=False, max_length=100, label="Item key")
    splits = forms.CharField(
        required=False,
        max_length=2000,
        label="Mapping",
        help_text="Each split and its batch ids or key values, e.g. train=3,4 test=5 (by batch), or "
        "train=1,2,3 test=4 (by a key); by a key without a mapping, its value is the split's name.",
        widget=forms.TextInput(attrs={"size": 30, "placeholder": "train=3,4 test=5"}),
    )
    split_default = forms.CharField(max_length=100, initial="train", label="Other items")
    license = forms.CharField(
        max_length=64, initial="other", label="Licence", help_text="A Hub licence id, e.g. cc-by-4.0."
    )
    task_categories = forms.CharField(
        required=False,
        max_length=300,
        label="Task categories",
        help_text="The Hub's task categories, comma-separated; empty: the task's own.",
    )

    def clean(self) -> dict[str, Any]:
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            plan = SplitPlan.parse(
                by=data["split_by"],
                key=data["split_key"].strip(),
                specs=data["splits"].replace(";", " ").split(),
                default=data["split_default"].strip(),
            )
        except SplitError as exc:
            raise forms.ValidationError(str(exc)) from None
        categories = tuple(c.strip() for c in data["task_categories"].split(",") if c.strip())
        options = HubOptions(plan=plan, license=data["license"].strip(), task_categories=categories)
        if options.problems():
            raise forms.ValidationError(options.problems())
        data["options"] = options
        return data
