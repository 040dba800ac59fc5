"""Task-file questions asked outside any item: a study's comprehension check or exit survey uses
the same question types, forms, server-side rules and page template as a task page, with no item
to show (so no options from an item, spans or sentences)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .forms import TaskFilePageForm, question_context
from .questions import is_correct
from .spec import PageSpec, TaskSpec, page_spec

#: question keys that need an item; a question set has none
ITEM_KEYS = ("options_from", "source", "gold", "label")
ITEM_TYPES = ("spans", "sentences")


def words(text: str) -> str:
    """A study's words are written in the batch's language: shown as they are."""
    return text


@dataclass(frozen=True)
class QuestionSet:
    task: TaskSpec
    page: PageSpec

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(q.id for q in self.page.questions)

    def form(self, data: Any = None, *, answers: Mapping[str, Any] | None = None) -> TaskFilePageForm:
        form_class = type(
            f"{self.page.id}_form",
            (TaskFilePageForm,),
            {"task": self.task, "page_spec": self.page, "words": staticmethod(words)},
        )
        return form_class(data, payload={}, answers=answers or {})

    def context(self) -> dict[str, Any]:
        """The page template's `page` (the task page's shape, with nothing shown of an item)."""
        return {
            "intro": self.page.intro,
            "min_seconds": "",
            "shown": [],
            "questions": [question_context(q, words) for q in self.page.questions],
        }

    def marks(self, answer: Mapping[str, Any], expected: Mapping[str, Any]) -> dict[str, bool]:
        """Per question with an expected answer: whether `answer` gives it (unanswered: wrong)."""
        marked = {}
        for q in self.page.questions:
            if q.id in expected:
                marked[q.id] = bool(is_correct(q, answer.get(q.id), expected[q.id]))
        return marked


def question_set(set_id: str, questions: Sequence[Mapping[str, Any]], *, intro: str = "") -> QuestionSet:
    """The questions (schema-checked data of the task file's `question` type) as one page."""
    page = page_spec({"id": set_id, "intro": intro, "questions": list(questions)})
    task = TaskSpec(title=set_id, pages=(page,), shown=())
    return QuestionSet(task=task, page=page)


def item_key_problems(question: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, message) of what a question asked outside any item cannot use."""
    found = []
    if question.get("type") in ITEM_TYPES:
        found.append(("type", f"a {question['type']} question needs an item's text; a study's questions have none"))
    for key in ITEM_KEYS:
        if key in question:
            found.append((key, f"{key!r} refers to an item; a study's questions have none"))
    return found
