"""GCRC's page forms: the answer (only for items released without one) and one page per option.

An option's page asks for its supporting sentences (checkboxes whose labels are the sentences of
the article, so a click on a sentence toggles it, with or without JavaScript), its reasoning
skill, whether it is a wrong statement (pre-set from the question's polarity) and, exactly for a
wrong statement, its error reason. Everything is checked again here, on the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..base import PageForm
from .labels import ERRORS, OPTION_LETTERS, SKILLS, polarity

#: the paper's three levels of reasoning skills (§3.2), as the annotator reads them
LEVEL_NAMES = {
    1: gettext_lazy("Level 1: basic information capturing"),
    2: gettext_lazy("Level 2: local information integration"),
    3: gettext_lazy("Level 3: global information integration"),
}


def item_answer(payload: Mapping[str, Any], answers: Mapping[str, Any]) -> str | None:
    """The answer the annotator works with: the item's own (released with it), else the one the
    annotator chose on the answer page; None before that page is saved."""
    given = (payload.get("reference") or {}).get("answer")
    if given:
        return given
    return (answers.get("answer") or {}).get("answer")


def preset_wrong(payload: Mapping[str, Any], answers: Mapping[str, Any]) -> tuple[bool, ...] | None:
    """Which options are wrong statements as the question's polarity and the answer imply."""
    answer = item_answer(payload, answers)
    return None if answer is None else polarity(payload["question"], answer).wrong


def skill_choices() -> list[tuple[str, str]]:
    return [(s.code, f"{s.zh} · {s.en} ({s.code}) — {LEVEL_NAMES[s.level or 1]}") for s in SKILLS]


def none_label(*, wrong: bool) -> str:
    """The error reason's empty choice: "none: a true statement" beside an unticked box, a prompt
    beside a ticked one (the page must never show a wrong statement with "none: ... true")."""
    return _("Choose the error reason of this wrong statement.") if wrong else _("— none: a true statement —")


def error_choices(*, wrong: bool = False) -> list[tuple[str, str]]:
    return [("", none_label(wrong=wrong)), *((e.code, f"{e.zh} · {e.en} ({e.code})") for e in ERRORS)]


class AnswerForm(PageForm):
    # Django's form metaclass moves a declared field into `base_fields`, so this does not
    # shadow PageForm.answer(); the stubs do not model that (the stored key is "answer").
    answer = forms.ChoiceField(widget=forms.RadioSelect, label="")  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        options = self.payload["options"]
        cast(forms.ChoiceField, self.fields["answer"]).choices = [
            (letter, f"{letter}. {text}") for letter, text in zip(OPTION_LETTERS, options, strict=True)
        ]


class OptionForm(PageForm):
    """The labels of one option (`index`: 0-3 for A-D); subclasses fix the index."""

    index: int = 0
    evidence = forms.TypedMultipleChoiceField(
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        label="",
        error_messages={"required": gettext_lazy("Select at least one supporting sentence in the article.")},
    )
    skill = forms.ChoiceField(widget=forms.RadioSelect, label="")
    wrong = forms.BooleanField(required=False, label=gettext_lazy("This option is a wrong statement"))
    error = forms.ChoiceField(required=False, label=gettext_lazy("Error reason"))

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        sentences = self.payload["sentences"]
        cast(forms.ChoiceField, self.fields["evidence"]).choices = [
            (i, sentence["text"]) for i, sentence in enumerate(sentences)
        ]
        cast(forms.ChoiceField, self.fields["skill"]).choices = skill_choices()
        preset = preset_wrong(self.payload, self.answers)
        self.fields["wrong"].initial = bool(preset and preset[self.index])
        error = cast(forms.ChoiceField, self.fields["error"])
        error.choices = error_choices(wrong=self._ticked())
        # gcrc.js relabels the empty choice as the box is ticked and unticked
        error.widget.attrs.update(
            {"data-none-true": none_label(wrong=False), "data-none-wrong": none_label(wrong=True)}
        )

    def _ticked(self) -> bool:
        """Whether the page shows the "wrong statement" box ticked: as posted, else as pre-set."""
        if self.is_bound:
            return bool(self["wrong"].data)
        return bool(self["wrong"].initial)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        wrong, error = data.get("wrong"), data.get("error")
        if wrong and not error:
            self.add_error("error", _("Choose the error reason of this wrong statement."))
        if not wrong and error:
            self.add_error("error", _("A true statement has no error reason: clear it, or mark the option as wrong."))
        return data

    def answer(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "evidence": sorted(set(data["evidence"])),
            "skill": data["skill"],
            "wrong": bool(data["wrong"]),
            "error": data["error"] if data["wrong"] else "",
        }


#: one form class per option, A-D
OPTION_FORMS: tuple[type[OptionForm], ...] = tuple(
    type(f"Option{letter}Form", (OptionForm,), {"index": index}) for index, letter in enumerate(OPTION_LETTERS)
)
