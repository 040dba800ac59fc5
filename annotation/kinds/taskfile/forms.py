"""The form of one task-file page: a field per question asked, the rules checked on the server
(conditions, use-once groups, the types' bounds), the answer stored as {question id: value}."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext as _

from ..base import PageForm
from .questions import answer_value, form_field, keep_name, options_for
from .spec import CHOICES, Option, PageSpec, Question, TaskSpec


def answer_of(task: TaskSpec, answers: Mapping[str, Any], question_id: str) -> Any:
    """A question's stored answer (None: not answered, or not asked)."""
    page = task.question(question_id).page
    return (answers.get(page) or {}).get(question_id)


def asked(task: TaskSpec, page: PageSpec, answers: Mapping[str, Any]) -> list[Question]:
    """The page's questions not hidden by an earlier page's answer (a condition on this page's
    own answers is decided when the page is posted)."""
    here = {q.id for q in page.questions}
    return [
        q
        for q in page.questions
        if q.show_if is None
        or q.show_if.question in here
        or q.show_if.holds(answer_of(task, answers, q.show_if.question))
    ]


def choices_of(question: Question, payload: Mapping[str, Any], words: Callable[[str], str]) -> list[Option]:
    """The options of a choice question, or the labels of a span question."""
    if question.type in CHOICES:
        return options_for(question, payload, words)
    if question.type == "spans":
        raw = question.get("labels") or []
        return options_for(
            Question(question.id, "single_choice", "", question.page, own={"options": raw}), payload, words
        )
    return []


def question_context(q: Question, words: Callable[[str], str]) -> dict[str, Any]:
    """What the page template needs of one question beside its form field."""
    ends = q.get("labels") if q.type in ("likert", "slider") else None
    condition = q.show_if
    return {
        "id": q.id,
        "type": q.type,
        "ends": [words(e) for e in ends] if ends else [],
        "show_if": ""
        if condition is None
        else json.dumps({"question": condition.question, "test": condition.test, "values": list(condition.values)}),
        "source": q.get("source", ""),
    }


class TaskFilePageForm(PageForm):
    """Base of each page's form class (made once per task and page by the kind)."""

    task: ClassVar[TaskSpec]
    page_spec: ClassVar[PageSpec]
    words: ClassVar[Callable[[str], str]]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        words = type(self).words
        here = {q.id for q in self.page_spec.questions}
        self.asked = asked(self.task, self.page_spec, self.answers)
        self.options: dict[str, list[Option]] = {}
        for q in self.asked:
            self.options[q.id] = choices_of(q, self.payload, words)
            # a question shown by an answer on this page: its input cannot insist (it may stay
            # hidden); `clean` requires it once shown, and its label says so (`optional`)
            decided_later = q.show_if is not None and q.show_if.question in here
            field = form_field(q, self.payload, self.options[q.id], required=q.required and not decided_later)
            field.label = words(q.prompt)
            field.help_text = words(q.help) if q.help else ""
            self.fields[q.id] = field
            if q.type == "slider":
                self.fields[keep_name(q.id)] = forms.BooleanField(
                    required=False,
                    label=_("Keep this value as my answer"),
                    widget=forms.CheckboxInput(attrs={"data-slider-keep": q.id}),
                )
        self._answer: dict[str, Any] = {}

    def decided_here(self, q: Any) -> bool:
        """Whether an answer on this page decides if `q` is asked."""
        return q.show_if is not None and q.show_if.question in {p.id for p in self.page_spec.questions}

    def _asked(self, question: str) -> Any:
        return next(q for q in self.asked if q.id == question)

    def optional(self, question: str) -> bool:
        """Whether `question` may be left empty (its label says "(optional)"): a required question
        shown by an answer on this page is required whenever it is shown."""
        q = self._asked(question)
        return not self.fields[q.id].required and not (q.required and self.decided_here(q))

    def shown(self, question: str) -> bool:
        """Whether `question` is shown as the page is drawn: one an answer on this page decides
        only once the answer given (posted, or none yet) meets its condition; the page's script
        shows and hides it as the answer changes."""
        q = self._asked(question)
        return not self.decided_here(q) or q.show_if.holds(self[q.show_if.question].value() or None)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        here = {q.id for q in self.page_spec.questions}
        answer: dict[str, Any] = {}
        for q in self.asked:
            if (
                q.show_if is not None
                and q.show_if.question in here
                and not q.show_if.holds(answer.get(q.show_if.question))
            ):
                self.errors.pop(q.id, None)  # not asked after all: nothing it says counts
                continue
            if q.id in self.errors:
                continue
            raw = data.get(q.id)
            if q.type == "slider" and not data.get(keep_name(q.id)):
                raw = None  # a slider's value is an answer once it was moved or kept
            may_be_empty = q.type == "spans" or (
                q.type in ("multiple_choice", "sentences") and q.get("min_choices", 1) == 0
            )
            if raw in (None, "", []) and q.required and not may_be_empty:
                message = self.fields[q.id].error_messages["required"]
                if q.type == "slider":
                    message = _("Move the slider to your answer, or tick “Keep this value as my answer”.")
                self.add_error(q.id, forms.ValidationError(message, code="required"))
                continue
            try:
                answer[q.id] = answer_value(q, raw, self.payload, self.options[q.id], q.required)
            except forms.ValidationError as error:
                self.add_error(q.id, error)
        self._check_use_once(answer)
        self._answer = answer
        return data

    def _check_use_once(self, answer: Mapping[str, Any]) -> None:
        """Within a use-once group no option is chosen twice: earlier pages' answers first."""
        used: dict[str, dict[str, str]] = {}
        for q in self.task.questions:
            group = q.get("use_once")
            if not group:
                continue
            value = answer.get(q.id) if q.page == self.page_spec.id else answer_of(self.task, self.answers, q.id)
            for chosen in value if isinstance(value, list) else [value]:
                if chosen is None:
                    continue
                taken = used.setdefault(group, {})
                first = taken.setdefault(str(chosen), q.id)
                if first == q.id:
                    continue
                mine = next((i for i in (q.id, first) if i in self.fields), None)
                if mine is not None and mine not in self.errors:
                    self.add_error(mine, _("This option is already used for another question; each may be used once."))

    def answer(self) -> dict[str, Any]:
        return dict(self._answer)
