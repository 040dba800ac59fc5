"""What a language model is shown of an item and asked about it (`TaskKind.model_task`): the
item's text by heading and one question per label field, each with the JSON Schema of its
answer, so `annotation.llm.prompts` builds the request and checks the reply without knowing the
kind. The builders below write the schemas of the answer types (a choice, choices, a number in a
range, a text, marked spans); `from_label_fields` is every kind's default, by each field's level."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .results import LabelField


@dataclass(frozen=True)
class ModelQuestion:
    """One label field put to a model: `prompt` (what is asked), `schema` (its answer's JSON
    Schema), `options` ((value, what it means), listed in the prompt), `note` (a scale's ends,
    how spans are given), and `to_label`: the answer as a prediction file gives the field's
    value, which the kind's `prediction_value` then checks (None: as it is)."""

    field: str
    prompt: str
    schema: dict[str, Any]
    options: tuple[tuple[Any, str], ...] = ()
    note: str = ""
    to_label: Callable[[Any], Any] | None = None

    def label(self, answer: Any) -> Any:
        return answer if self.to_label is None else self.to_label(answer)


@dataclass(frozen=True)
class ModelTask:
    """The item's text by heading (what an annotator reads) and the questions, in order."""

    item: Mapping[str, str]
    questions: tuple[ModelQuestion, ...] = field(default_factory=tuple)


def choice(name: str, prompt: str, options: Sequence[tuple[Any, str]], note: str = "") -> ModelQuestion:
    """One of the options' values."""
    return ModelQuestion(name, prompt, {"enum": [value for value, _ in options]}, tuple(options), note)


def choices(
    name: str, prompt: str, options: Sequence[tuple[Any, str]], *, low: int | None = None, high: int | None = None
) -> ModelQuestion:
    """Some of the options' values, each once."""
    schema: dict[str, Any] = {"type": "array", "items": {"enum": [v for v, _ in options]}, "uniqueItems": True}
    schema.update({k: v for k, v in (("minItems", low), ("maxItems", high)) if v is not None})
    return ModelQuestion(name, prompt, schema, tuple(options), "Give a list of the options' values.")


def number(
    name: str, prompt: str, *, low: float | None = None, high: float | None = None, whole: bool = False, note: str = ""
) -> ModelQuestion:
    """A number (a whole one when `whole`) within [low, high] where they are given."""
    schema: dict[str, Any] = {"type": "integer" if whole else "number"}
    schema.update({k: v for k, v in (("minimum", low), ("maximum", high)) if v is not None})
    if not note and low is not None and high is not None:
        note = f"A {'whole ' if whole else ''}number from {low:g} to {high:g}."
    return ModelQuestion(name, prompt, schema, note=note)


def text(name: str, prompt: str, note: str = "") -> ModelQuestion:
    return ModelQuestion(name, prompt, {"type": "string"}, note=note)


def spans(
    name: str, prompt: str, *, length: int, labels: Sequence[tuple[Any, str]] = (), to_label: Any = None
) -> ModelQuestion:
    """Marked spans of a text of `length` characters: {start, end, label} each, offsets in code
    points, end exclusive."""
    properties: dict[str, Any] = {
        "start": {"type": "integer", "minimum": 0, "maximum": length},
        "end": {"type": "integer", "minimum": 0, "maximum": length},
    }
    if labels:
        properties["label"] = {"enum": [value for value, _ in labels]}
    item = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
    note = "Give a list of spans: character offsets from 0 (end exclusive)" + (
        ", each with a label." if labels else "."
    )
    return ModelQuestion(name, prompt, {"type": "array", "items": item}, tuple(labels), note, to_label)


def from_label_fields(fields: Sequence[LabelField], item: Mapping[str, str]) -> ModelTask:
    """One question per label field, by its level: an ordered field's levels as a choice, an
    interval as a number, a set as a list, any other as a text (the kind's `prediction_value`
    then checks it)."""
    questions = []
    for label in fields:
        prompt = label.title or label.name
        if label.order:
            questions.append(choice(label.name, prompt, [(v, str(v)) for v in label.order]))
        elif label.level == "interval":
            questions.append(number(label.name, prompt))
        elif label.level == "set":
            questions.append(ModelQuestion(label.name, prompt, {"type": "array", "items": {"type": "string"}}))
        else:
            questions.append(text(label.name, prompt))
    return ModelTask(item=dict(item), questions=tuple(questions))
