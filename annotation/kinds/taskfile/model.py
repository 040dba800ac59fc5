"""A task file's questions put to a language model (`TaskKind.model_task`): the item's shown keys
under their labels (sentences numbered as the page numbers them), and each label question with
its prompt, options and bounds as the answer's JSON Schema, by question type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..model_task import ModelQuestion, ModelTask, choice, choices, number, spans, text
from .display import sentences_of, text_of
from .forms import choices_of
from .questions import label_of
from .spec import Question, TaskSpec


def model_task(task: TaskSpec, payload: Mapping[str, Any], words: Callable[[str], str]) -> ModelTask:
    item = {}
    for shown in task.shown:
        value = payload.get(shown.key)
        if shown.as_ == "sentences":
            item[words(shown.label)] = "\n".join(f"[{n}] {s}" for n, s in enumerate(sentences_of(value), start=1))
        else:
            item[words(shown.label)] = text_of(value)
    questions = tuple(_question(q, payload, words) for q in task.questions if q.label)
    return ModelTask(item=item, questions=questions)


def _question(q: Question, payload: Mapping[str, Any], words: Callable[[str], str]) -> ModelQuestion:
    prompt = words(q.prompt) + (f" ({words(q.help)})" if q.help else "")
    options = [(o.value, o.label) for o in choices_of(q, payload, words)]
    if q.type == "single_choice":
        return choice(q.id, prompt, options)
    if q.type == "multiple_choice":
        return choices(q.id, prompt, options, low=q.get("min_choices"), high=q.get("max_choices"))
    if q.type == "likert":
        ends = q.get("labels") or ["", ""]
        note = f"A whole number from 1 ({words(ends[0])}) to {q.get('size')} ({words(ends[1])})."
        return number(q.id, prompt, low=1, high=int(q.get("size")), whole=True, note=note)
    if q.type in ("slider", "number"):
        whole = bool(q.get("integer")) or (q.type == "slider" and float(q.get("step", 1)).is_integer())
        return number(q.id, prompt, low=q.get("min"), high=q.get("max"), whole=whole)
    if q.type == "sentences":
        count = len(sentences_of(payload.get(q.get("source"))))
        numbers = [(n, f"sentence {n}") for n in range(1, count + 1)]
        found = choices(q.id, prompt, numbers, low=q.get("min_choices"), high=q.get("max_choices"))
        return ModelQuestion(q.id, prompt, found.schema, note="Give a list of the sentences' numbers.")
    if q.type == "spans":
        source = text_of(payload.get(q.get("source")))
        return spans(q.id, prompt, length=len(source), labels=options, to_label=lambda answer: label_of(q, answer))
    return text(q.id, prompt)
