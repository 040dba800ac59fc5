"""A task file's answers typed by their question's type (`TaskKind.typed_answers`): choices as
choices, a Likert point as a rating, a slider or number as a number, texts as texts, marked
spans as spans of the text they mark, sentence numbers as choices."""

from __future__ import annotations

from typing import Any

from ..typed import TypedAnswer
from .spec import CHOICES, Question, TaskSpec


def typed_answer(question: Question, answer: Any, task: TaskSpec) -> TypedAnswer | None:
    """One question's answer, or None when it has none (not asked, left empty)."""
    if answer is None or answer == "" or answer == []:
        return None
    q = question
    whole = task.shown[0].key if task.shown else ""
    if q.type in CHOICES or q.type == "sentences":
        values = answer if isinstance(answer, list) else [answer]
        target = str(q.get("source") or whole) if q.type == "sentences" else whole
        return TypedAnswer(q.id, "choices", [str(v) for v in values], target)
    if q.type == "likert":
        return TypedAnswer(q.id, "rating", int(answer), whole)
    if q.type in ("slider", "number"):
        return TypedAnswer(q.id, "number", float(answer) if not isinstance(answer, int) else answer, whole)
    if q.type in ("short_text", "long_text"):
        return TypedAnswer(q.id, "text", str(answer), whole)
    if q.type == "spans":
        spans = [
            {"start": s["start"], "end": s["end"], "text": s.get("text", ""), "label": s.get("label")} for s in answer
        ]
        return TypedAnswer(q.id, "spans", spans, str(q.get("source")))
    return None  # pragma: no cover - every type is named above
