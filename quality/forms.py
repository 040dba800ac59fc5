"""Forms of the quality pages: what a researcher asks of an export; their verdict on one annotation."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from annotation.models import Project
from quality.exports import FORMATS, Options, project_datasets
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
        cast(forms.ChoiceField, self.fields["dataset"]).choices = [(name, name) for name in project_datasets(project)]

    def options(self) -> Options:
        return Options(spreadsheet_safe=self.cleaned_data["spreadsheet_safe"], item_text=self.cleaned_data["item_text"])


class ResearcherDecisionForm(forms.Form):
    """Accept or reject one annotation of the item page, with a note (needed to reject)."""

    response = forms.IntegerField(widget=forms.HiddenInput)
    decision = forms.ChoiceField(choices=ResearcherDecision.Decision.choices)
    note = forms.CharField(required=False, max_length=2000, widget=forms.TextInput(attrs={"size": 40}))
