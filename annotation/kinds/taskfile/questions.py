"""The task file's question types: each one's form field, the answer it stores, and how an
answer compares with gold. One table of types, so a new type is one function here."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext as _

from annotation.structured_input import Refused, load_json

from .display import sentences_of, text_of
from .spec import CHOICES, Option, Question

Words = Callable[[str], str]
#: the default longest short and long text answers
TEXT_LIMITS = {"short_text": 200, "long_text": 5000}


def keep_name(question_id: str) -> str:
    """The form field of a slider's "keep this value" box: ticked by the page once the slider
    moves, or by the annotator to answer with the value it shows. A slider always posts a value,
    so without it an untouched slider would read as a chosen midpoint."""
    return f"{question_id}-keep"


def options_for(question: Question, payload: Mapping[str, Any], words: Words) -> list[Option]:
    """A choice question's options: written in the file (their labels translated) or taken from
    the item (one key holding a list, or a list of keys whose values are the options 0, 1, ...)."""
    source = question.get("options_from")
    if source is None:
        raw, translate = question.get("options") or [], words
    elif isinstance(source, str):
        raw, translate = payload.get(source) or [], str
        if not isinstance(raw, list):
            raw = []
    else:
        raw = [{"value": i, "label": str(payload.get(key, ""))} for i, key in enumerate(source)]
        translate = str
    options = []
    for position, entry in enumerate(raw):
        if isinstance(entry, Mapping):
            value = entry.get("value", position)
            label = translate(str(entry.get("label", value)))
            key = str(entry.get("key") or "")
        else:
            value, label, key = entry, translate(str(entry)), ""
        if not key and question.shortcuts and position < 9:
            key = str(position + 1)
        options.append(Option(value, label, key if question.shortcuts or key else ""))
    return options


def form_field(
    question: Question, payload: Mapping[str, Any], options: Sequence[Option], required: bool
) -> forms.Field:
    """The Django form field that reads one question's answer from the page's POST."""
    q, attrs = question, {"data-question": question.id}
    named = {**attrs, "aria-labelledby": f"prompt-{question.id}"}  # a lone control is named by the prompt
    if q.type == "single_choice":
        return forms.ChoiceField(
            choices=[(str(o.value), o.label) for o in options], widget=forms.RadioSelect(attrs=attrs), required=required
        )
    if q.type == "multiple_choice":
        return forms.MultipleChoiceField(
            choices=[(str(o.value), o.label) for o in options],
            widget=forms.CheckboxSelectMultiple(attrs=attrs),
            required=required and q.get("min_choices", 1) > 0,
        )
    if q.type == "likert":
        size = int(q.get("size"))
        return forms.TypedChoiceField(
            coerce=int,
            choices=[(str(i), str(i)) for i in range(1, size + 1)],
            widget=forms.RadioSelect(attrs=attrs),
            required=required,
        )
    if q.type == "slider":
        step = q.get("step", 1)
        widget = forms.NumberInput(
            attrs={**named, "type": "range", "min": q.get("min"), "max": q.get("max"), "step": step}
        )
        return forms.FloatField(min_value=q.get("min"), max_value=q.get("max"), widget=widget, required=required)
    if q.type == "number":
        field_class = forms.IntegerField if q.get("integer") else forms.FloatField
        return field_class(
            min_value=q.get("min"), max_value=q.get("max"), required=required, widget=forms.NumberInput(attrs=named)
        )
    if q.type in TEXT_LIMITS:
        box: forms.Widget = (
            forms.Textarea(attrs={**named, "rows": 4}) if q.type == "long_text" else forms.TextInput(attrs=named)
        )
        return forms.CharField(
            min_length=q.get("min_length"),
            max_length=q.get("max_length", TEXT_LIMITS[q.type]),
            strip=True,
            widget=box,
            required=required,
        )
    if q.type == "spans":
        return forms.CharField(required=False, widget=forms.HiddenInput(attrs={**attrs, "data-spans": q.get("source")}))
    if q.type == "sentences":
        numbered = sentences_of(payload.get(q.get("source")))
        return forms.MultipleChoiceField(
            choices=[(str(n), text) for n, text in enumerate(numbered, start=1)],
            widget=forms.CheckboxSelectMultiple(attrs=attrs),
            required=required and q.get("min_choices", 1) > 0,
        )
    raise ValueError(f"unknown question type {q.type!r}")  # pragma: no cover - the schema lists the types


def answer_value(
    question: Question, raw: Any, payload: Mapping[str, Any], options: Sequence[Option], required: bool
) -> Any:
    """The JSON-able answer stored for a cleaned field value; raises ValidationError where the
    type's own bounds are broken (choices counted, a slider's step, spans inside the text)."""
    q = question
    if raw in (None, "", []) and q.type != "spans":
        return None
    if q.type == "single_choice":
        return next(o.value for o in options if str(o.value) == raw)
    if q.type in ("multiple_choice", "sentences"):
        chosen = set(raw)
        _check_count(q, len(chosen))
        if q.type == "sentences":
            return sorted(int(n) for n in chosen)
        return [o.value for o in options if str(o.value) in chosen]
    if q.type == "slider":
        return _on_step(q, raw)
    if q.type == "number":
        return int(raw) if isinstance(raw, float) and raw.is_integer() and q.get("integer") else raw
    if q.type == "spans":
        return _spans(q, raw, text_of(payload.get(q.get("source"))), options, required)
    return raw


def _check_count(q: Question, count: int) -> None:
    low, high = q.get("min_choices"), q.get("max_choices")
    if low is not None and count < low:
        raise forms.ValidationError(_("Choose at least %(n)s.") % {"n": low})
    if high is not None and count > high:
        raise forms.ValidationError(_("Choose at most %(n)s.") % {"n": high})


def _on_step(q: Question, value: float) -> float | int:
    low, step = float(q.get("min")), float(q.get("step", 1))
    steps = (value - low) / step
    if not math.isclose(steps, round(steps), abs_tol=1e-9):
        raise forms.ValidationError(_("Pick a value on the scale's steps of %(step)s.") % {"step": q.get("step", 1)})
    value = low + round(steps) * step
    whole = all(float(x).is_integer() for x in (q.get("min"), q.get("step", 1)))
    return int(round(value)) if whole else round(value, 9)


def _spans(q: Question, raw: str, text: str, labels: Sequence[Option], required: bool) -> list[dict[str, Any]]:
    """The marked spans as a sorted list of {start, end, text, label}: offsets in code points of
    the text as stored (what Python slices; the page maps its selection to them), the text a
    page sends with a span equal to what those offsets mark, labels from the question's, no span
    twice."""
    try:
        marked = load_json(raw or "[]")
    except Refused:
        raise forms.ValidationError(_("The marked spans could not be read; please mark them again.")) from None
    if not isinstance(marked, list):
        raise forms.ValidationError(_("The marked spans could not be read; please mark them again."))
    allowed = {str(o.value): o.value for o in labels}
    spans: list[dict[str, Any]] = []
    for span in marked:
        if not isinstance(span, Mapping):
            raise forms.ValidationError(_("The marked spans could not be read; please mark them again."))
        start, end, label = span.get("start"), span.get("end"), span.get("label")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
            raise forms.ValidationError(_("A marked span lies outside the text; please mark it again."))
        sent = span.get("text")
        if sent is not None and sent != text[start:end]:
            raise forms.ValidationError(
                _("A marked span does not match the text it should mark; please mark it again.")
            )
        if allowed and str(label) not in allowed:
            raise forms.ValidationError(_("Give every marked span one of the labels."))
        entry = {
            "start": start,
            "end": end,
            "text": text[start:end],
            "label": allowed.get(str(label)) if allowed else None,
        }
        if entry not in spans:
            spans.append(entry)
    if required and not spans:
        raise forms.ValidationError(_("Mark at least one span in the text."))
    if q.get("max_spans") is not None and len(spans) > q.get("max_spans"):
        raise forms.ValidationError(_("Mark at most %(n)s spans.") % {"n": q.get("max_spans")})
    return sorted(spans, key=lambda s: (s["start"], s["end"]))


def is_correct(question: Question, answer: Any, gold: Any) -> bool | None:
    """Whether an answer is the item's gold answer (None: either is unknown), compared as text;
    lists as sets."""
    if answer is None or gold is None or gold == "":
        return None
    if isinstance(gold, list) or isinstance(answer, list):
        gold_set = {str(g) for g in (gold if isinstance(gold, list) else [gold])}
        answer_set = {str(a) for a in (answer if isinstance(answer, list) else [answer])}
        return gold_set == answer_set
    if question.type in ("slider", "number") and _number(gold) is not None and _number(answer) is not None:
        return math.isclose(float(_number(gold) or 0), float(_number(answer) or 0))
    return str(answer).strip() == str(gold).strip()


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def label_of(question: Question, answer: Any) -> Any:
    """An answer as a label value: sets as sorted lists (spans as `start-end label` strings)."""
    if answer is None:
        return None
    if question.type == "spans":
        return sorted(
            f"{s['start']}-{s['end']}" + (f" {s['label']}" if s.get("label") is not None else "") for s in answer
        )
    if question.type in CHOICES and isinstance(answer, list):
        return sorted(str(a) for a in answer)
    return answer
