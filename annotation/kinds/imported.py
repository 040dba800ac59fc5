"""Annotations made elsewhere, checked as the platform's own are: the answers a kind's page forms
store for them, page by page in the item's flow (the forms an annotator's save goes through, with
the same rules: choices among the options, required questions, bounds, spans in the text). No
second validator: a kind turns the typed answers into the form data its pages read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from annotation.structured_input import value_problem

from .base import ImportProblem, Page, TaskKind
from .typed import ImportedAnnotation, TypedAnswer

#: a kind's typed answers of one item (payload) -> the data its page forms read, by field name;
#: raises ImportProblem naming the field an answer does not fit
FormData = Callable[[Mapping[str, Any], Sequence[TypedAnswer]], dict[str, Any]]


def checked_annotation(
    kind: TaskKind, payload: Mapping[str, Any], annotation: ImportedAnnotation, form_data: FormData
) -> ImportedAnnotation:
    """`annotation` with the answers the kind stores for it; a field that does not fit raises
    ImportProblem naming the annotation (`where`), its line and the field."""
    try:
        answers = answers_by_pages(kind, payload, form_data(payload, annotation.typed))
        problem = value_problem(answers)
        if problem is not None:  # a lone surrogate in a text: no database stores it alike
            raise ImportProblem(problem[0], field=problem[1])
    except ImportProblem as problem:
        raise ImportProblem(
            f"{annotation.where}: {problem.message}", line=annotation.line, field=problem.field
        ) from None
    return replace(annotation, answers=answers)


def answers_by_pages(kind: TaskKind, payload: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """{page: answer} as each page's form cleans `data`, in the flow's order (a page shown by an
    earlier answer is asked when that answer is in); data no page asked for is refused, so
    nothing of it is silently lost."""
    answers: dict[str, Any] = {}
    asked: set[str] = set()
    while (page := _next_page(kind, payload, answers)) is not None:
        form = page.form_class(data, payload=payload, answers=answers)
        if not form.is_valid():
            name, errors = next(iter(form.errors.items()))
            raise ImportProblem(" ".join(str(e) for e in errors), field=None if name == "__all__" else name)
        answer = form.answer()
        # a question its own page hid is not asked; `<question>-<part>` fields (a slider's
        # keep box) belong to their question
        asked.update(name for name in form.fields if name.split("-", 1)[0] in answer)
        answers[page.slug] = answer
    left = sorted(set(data) - asked)
    if left:
        raise ImportProblem("answers a question the item's pages do not ask, given the other answers", field=left[0])
    return answers


def _next_page(kind: TaskKind, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Page | None:
    return next((page for page in kind.pages(payload, answers) if page.slug not in answers), None)
