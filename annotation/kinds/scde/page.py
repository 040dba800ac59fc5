"""SCDE's annotator page: the passage with a choice in place of each blank, the candidate list,
and the passage's difficulty, all on one page.

One page, not a fill page then a difficulty page: the paper's workers rated a passage they had
just answered, with the passage still in view, and its figure of 624 s per passage is one span
of work; one page gives one server time and one visible time per passage without adding steps.
The server refuses what the page's script prevents (a candidate used twice, a blank left
empty) through `check_answers`, so a tampered or outdated page cannot store such an answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ..base import Page, PageForm
from .answers import candidate_label, check_answers

#: the paper's five ratings (§5.3), hardest first, stored by these names
DIFFICULTIES = [
    ("VeryHard", _("Very hard")),
    ("Hard", _("Hard")),
    ("Moderate", _("Moderate")),
    ("Easy", _("Easy")),
    ("VeryEasy", _("Very easy")),
]
#: a reported visible time above a week is not believed: the page's time token lasts that long
MAX_VISIBLE_MS = 7 * 24 * 3600 * 1000


def blank_field(blank: int) -> str:
    """The form field of a blank (`blank_1`, ...): the name the page posts its choice under."""
    return f"blank_{blank}"


def candidate_choices(payload: Mapping[str, Any]) -> list[tuple[str, str | Promise]]:
    """The options of every blank's <select>: none yet, then "A. sentence", "B. sentence", ..."""
    options = [(str(i), f"{candidate_label(i)}. {text}") for i, text in enumerate(payload["candidates"])]
    return [("", _("— choose a sentence —")), *options]


class PassageForm(PageForm):
    """Every blank's candidate, the difficulty, and the visible time the page reports."""

    difficulty = forms.ChoiceField(
        choices=DIFFICULTIES, widget=forms.RadioSelect, label=_("How difficult was this passage?")
    )
    visible_ms = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_VISIBLE_MS, widget=forms.HiddenInput(attrs={"data-visible-ms": "1"})
    )

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        choices = candidate_choices(self.payload)
        for blank in self.payload["blanks"]:
            self.fields[blank_field(blank)] = forms.TypedChoiceField(
                choices=choices,
                coerce=int,
                empty_value=None,
                required=False,
                label=_("Blank %(blank)s") % {"blank": blank},
                widget=forms.Select(attrs={"data-blank": str(blank), "class": "blank-choice"}),
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        names = {blank: blank_field(blank) for blank in self.payload["blanks"]}
        readable = {blank: data.get(name) for blank, name in names.items() if name not in self.errors}
        check = check_answers(self.payload, readable)
        for problem in check.problems:
            if problem.blank is None:
                self.add_error(None, problem.message)
            elif names[problem.blank] not in self.errors:  # one message per blank
                self.add_error(names[problem.blank], problem.message)
        data["choices"] = check.choices
        return data

    def answer(self) -> dict[str, Any]:
        """{"choices": {"1": candidate id, ...}, "difficulty": level, "visible_seconds": s or None}
        (string keys: the answer is compared with its stored JSON on a resubmit)."""
        data = self.cleaned_data
        visible = data.get("visible_ms")
        return {
            "choices": {str(blank): candidate for blank, candidate in sorted(data["choices"].items())},
            "difficulty": data["difficulty"],
            "visible_seconds": None if visible is None else round(visible / 1000, 3),
        }


PASSAGE_PAGE = Page("passage", _("Fill the blanks"), "surveys/scde/passage.html", PassageForm)


def passage_context(payload: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows: the passage in order (sentences and numbered blanks) and the
    candidates with their letters; the gold is not revealed."""
    return {
        "pieces": [dict(piece) for piece in payload["pieces"]],
        "candidates": [(candidate_label(i), text) for i, text in enumerate(payload["candidates"])],
        "used_note": _("used for blank %(blank)s"),
    }
