"""A task file's answers typed by their question's type (`TaskKind.typed_answers`): choices as
choices, a Likert point as a rating, a slider or number as a number, texts as texts, marked
spans as spans of the text they mark, sentence numbers as choices. `form_data` goes back: typed
answers made elsewhere (an imported annotation) as the data the questions' form fields read."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import ImportProblem
from ..typed import TypedAnswer
from .display import text_of
from .questions import keep_name
from .spec import CHOICES, Question, TaskSpec

#: a question type -> the form of its typed answer (one table for both directions)
FORM_OF_TYPE = {
    "single_choice": "choices",
    "multiple_choice": "choices",
    "sentences": "choices",
    "likert": "rating",
    "slider": "number",
    "number": "number",
    "short_text": "text",
    "long_text": "text",
    "spans": "spans",
}


def typed_answer(question: Question, answer: Any, task: TaskSpec) -> TypedAnswer | None:
    """One question's answer, or None when it has none (not asked, left empty)."""
    if answer is None or answer == "" or answer == []:
        return None
    q = question
    whole = task.shown[0].key if task.shown else ""
    form = FORM_OF_TYPE[q.type]
    if form == "choices":
        values = answer if isinstance(answer, list) else [answer]
        target = str(q.get("source") or whole) if q.type == "sentences" else whole
        return TypedAnswer(q.id, form, [str(v) for v in values], target)
    if form == "rating":
        return TypedAnswer(q.id, form, int(answer), whole)
    if form == "number":
        return TypedAnswer(q.id, form, float(answer) if not isinstance(answer, int) else answer, whole)
    if form == "text":
        return TypedAnswer(q.id, form, str(answer), whole)
    spans = [{"start": s["start"], "end": s["end"], "text": s.get("text", ""), "label": s.get("label")} for s in answer]
    return TypedAnswer(q.id, form, spans, str(q.get("source")))


def predicted_spans(value: Any, text: str | None) -> Any:
    """A span question's prediction as stored (`start-end label` texts, `questions.label_of`, or
    span objects, read from Label Studio's tasks) as the spans of `text` an answer holds; `text` None: the value is not a span question's, as it is."""
    if text is None or not isinstance(value, list):
        return value
    spans = []
    for entry in value:
        if isinstance(entry, Mapping):  # read from Label Studio's tasks: spans as an answer has them
            first, last = entry.get("start"), entry.get("end")
            if isinstance(first, int) and isinstance(last, int):
                spans.append({"start": first, "end": last, "text": text[first:last], "label": entry.get("label")})
            continue
        bounds, _, label = str(entry).partition(" ")
        start, _, end = bounds.partition("-")
        if not (start.isdigit() and end.isdigit()):
            continue
        first, last = int(start), int(end)
        spans.append({"start": first, "end": last, "text": text[first:last], "label": label or None})
    return spans


def form_data(task: TaskSpec, payload: Mapping[str, Any], typed: Sequence[TypedAnswer]) -> dict[str, Any]:
    """Typed answers as the page forms' data ({question id: what its field reads}); an answer
    for no label question, or of a form its question does not take, raises ImportProblem naming
    the field. Whether a value is one of the options is the form's to say."""
    labels = {q.id: q for q in task.questions if q.label}
    data: dict[str, Any] = {}
    for answer in typed:
        q = labels.get(answer.field)
        if q is None:
            named = ", ".join(labels) or "none"
            raise ImportProblem(
                f"no label question of the task file is named so (label questions: {named})", field=answer.field
            )
        form = FORM_OF_TYPE[q.type]
        if answer.form != form:
            raise ImportProblem(
                f"question {q.id!r} ({q.type}) takes a {form} answer, not a {answer.form} one", field=q.id
            )
        data[q.id] = _field_value(q, answer.value, payload)
        if q.type == "slider":
            data[keep_name(q.id)] = True  # a value given elsewhere is a chosen value
    return data


def _field_value(q: Question, value: Any, payload: Mapping[str, Any]) -> Any:
    if q.type == "single_choice":
        if len(value) != 1:
            raise ImportProblem(f"question {q.id!r} takes one choice, not {len(value)}", field=q.id)
        return value[0]
    if q.type in CHOICES or q.type == "sentences":
        return list(value)
    if q.type != "spans":
        return str(value)
    text = text_of(payload.get(q.get("source")))
    for span in value:
        marked = text[span["start"] : span["end"]] if 0 <= span["start"] < span["end"] <= len(text) else None
        if span["text"] is not None and marked is not None and span["text"] != marked:
            raise ImportProblem(
                f"the span {span['start']}-{span['end']} reads {marked!r} in the item, not {span['text']!r}", field=q.id
            )
    return json.dumps([{"start": s["start"], "end": s["end"], "label": s["label"]} for s in value])


def spans_text(data: str, text: str) -> str:
    """Marked spans of `text` as a span question's form data holds them (JSON), as a person
    reads them: each span's words in quotes, with its label."""
    spans = json.loads(data or "[]")
    return "; ".join(
        f"“{text[s['start'] : s['end']]}”" + (f" ({s['label']})" if s.get("label") is not None else "") for s in spans
    )
