"""GCRC's labels put to a language model (`TaskKind.model_task`): the question, the options and
the article's sentences numbered from 1, as the adjudicator reads them; per option its reasoning
skill, its error reason ("" for a right statement) and its supporting sentences by number."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..model_task import ModelQuestion, ModelTask, choice, choices
from .adjudication import field_name, item_text
from .labels import ERRORS, OPTION_LETTERS, SKILLS


def model_task(payload: Mapping[str, Any]) -> ModelTask:
    skills = [(s.code, s.en) for s in SKILLS]
    errors = [("", "none: the statement is right"), *((e.code, e.en) for e in ERRORS)]
    sentences = [(n, f"sentence {n}") for n in range(1, len(payload["sentences"]) + 1)]
    questions: list[ModelQuestion] = []
    for letter in OPTION_LETTERS:
        questions.append(choice(field_name(letter, "skill"), f"Option {letter}: the reasoning skill it needs", skills))
        error = choice(field_name(letter, "error"), f"Option {letter}: why its statement is wrong", errors)
        questions.append(replace(error, to_label=lambda code: code or None))
        evidence = choices(field_name(letter, "evidence"), f"Option {letter}: the supporting sentences", sentences)
        questions.append(replace(evidence, note="Give a list of the sentences' numbers."))
    return ModelTask(item=item_text(payload), questions=tuple(questions))
