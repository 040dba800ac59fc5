"""Label Studio's result entries and the platform's typed answers (`TypedAnswer`), both ways:
RESULT_TYPES is the one table (an answer's form -> Label Studio's result type and the key of its
value), which the export writes by and `typed_results` reads back (one typed answer per
`from_name`; a Labels control's entries, one per span, become one answer's spans)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import ImportProblem
from .typed import TypedAnswer

#: an answer's form -> Label Studio's result type and the key of its value
RESULT_TYPES = {
    "choices": ("choices", "choices"),
    "rating": ("rating", "rating"),
    "number": ("number", "number"),
    "text": ("textarea", "text"),
    "spans": ("labels", "labels"),
}
#: Label Studio's result type -> the answer's form
FORMS = {kind: form for form, (kind, _key) in RESULT_TYPES.items()}


def typed_results(results: Any, name: str, line: int) -> tuple[TypedAnswer, ...]:
    """An annotation's `result` as typed answers, in the order of their first entry; `name`
    (the task and annotation) and the field (`from_name`) are named in errors."""
    if results is None:
        results = []
    if not isinstance(results, list):
        raise ImportProblem(f"{name}: 'result' must be a list", line=line, field="result")
    answers: dict[str, TypedAnswer] = {}
    for number, entry in enumerate(results, start=1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("from_name"), str):
            raise ImportProblem(f"{name}: result {number} has no 'from_name'", line=line, field="result")
        field = entry["from_name"]
        kind = entry.get("type")
        form = FORMS.get(kind) if isinstance(kind, str) else None
        if form is None:
            known = ", ".join(FORMS)
            raise ImportProblem(
                f"{name}: a result of type {kind!r} is not imported (known: {known})", line=line, field=field
            )
        value = entry.get("value")
        if not isinstance(value, Mapping):
            raise ImportProblem(f"{name}: the result has no 'value' object", line=line, field=field)
        try:
            typed = _typed(form, value, field, str(entry.get("to_name") or ""))
        except ValueError as problem:
            raise ImportProblem(f"{name}: {problem} (a {kind} result)", line=line, field=field) from None
        earlier = answers.get(field)
        if earlier is not None and form != "spans":
            raise ImportProblem(f"{name}: two results for the same field", line=line, field=field)
        if earlier is not None:
            typed = TypedAnswer(field, form, [*earlier.value, *typed.value], earlier.target)
        answers[field] = typed
    return tuple(answers.values())


def _typed(form: str, value: Mapping[str, Any], field: str, target: str) -> TypedAnswer:
    """One entry's value as a typed answer; ValueError says what is wrong with it."""
    key = RESULT_TYPES[form][1]
    found = value.get(key)
    if form == "choices":
        if not isinstance(found, list) or not all(_scalar(v) for v in found):
            raise ValueError("'value.choices' must be a list of texts")
        return TypedAnswer(field, form, [str(v) for v in found], target)
    if form in ("rating", "number"):
        whole = form == "rating"
        if isinstance(found, bool) or not isinstance(found, int if whole else int | float):
            raise ValueError(f"'value.{key}' must be a {'whole ' if whole else ''}number")
        return TypedAnswer(field, form, found, target)
    if form == "text":
        texts = [found] if isinstance(found, str) else found
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError("'value.text' must be a list of texts")
        return TypedAnswer(field, form, "\n".join(texts), target)
    return TypedAnswer(field, form, [span_of(value)], target)


def span_of(value: Mapping[str, Any]) -> dict[str, Any]:
    """A Labels result's value as a span; ValueError says what is wrong with it."""
    start, end, labels = value.get("start"), value.get("end"), value.get("labels")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (start, end)):
        raise ValueError("'value.start' and 'value.end' must be whole numbers (offsets in the text)")
    if not isinstance(labels, list) or len(labels) > 1 or not all(_scalar(v) for v in labels):
        raise ValueError("'value.labels' must be a list of one label (or none)")
    text = value.get("text")
    return {
        "start": start,
        "end": end,
        "text": text if isinstance(text, str) else None,
        "label": labels[0] if labels else None,
    }


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)
