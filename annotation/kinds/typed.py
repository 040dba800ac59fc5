"""Label values typed for file formats that type each answer (a Label Studio result is a
choice, a rating, a number, a text or a marked span): the form of one label field's answer in
one annotation. Kinds say how their fields are typed (`TaskKind.typed_answers`); the generic
reading below goes by the field's level of measurement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

from .results import LabelField

#: the longest time one annotation or page can have taken: a week (a tab left open over a holiday);
#: a time beyond it, negative or not finite is refused where it enters and read as unknown where
#: it was stored before the check (issue 37)
MAX_SECONDS = 7 * 24 * 3600


def usable_seconds(value: Any) -> float | None:
    """`value` (unchanged: an int stays an int, as exports wrote it) when it is a finite number of
    seconds from 0 to MAX_SECONDS; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if 0 <= value <= MAX_SECONDS else None  # NaN compares False


#: the forms an answer takes, and what its `value` then holds:
#: choices: a list of texts (one for a single choice); rating: a whole number (a point of a scale
#: from 1); number: a number; text: a text; spans: a list of {start, end, text, label} (offsets in
#: the text of `target`)
ANSWER_FORMS = ("choices", "rating", "number", "text", "spans")


@dataclass(frozen=True)
class TypedAnswer:
    """One label field's answer: `field` (its name), `form` (one of ANSWER_FORMS), `value`, and
    `target`: the item key the answer is about (the text spans are marked in); "" when the
    answer is about the item as a whole."""

    field: str
    form: str
    value: Any
    target: str = ""

    def __post_init__(self) -> None:
        if self.form not in ANSWER_FORMS:
            raise ValueError(f"unknown answer form {self.form!r}; known: {ANSWER_FORMS}")


@dataclass(frozen=True)
class ImportedAnnotation:
    """One annotation made elsewhere (a Label Studio annotation), as an import file carries it:
    `annotator` (their id there), the label answers `typed`, the `seconds` it took and when it was
    `completed_at` (None: unknown); `where` and `line` name it in errors. `answers`: the answers
    as the kind stores them ({page: answer}), set once the kind's page forms accepted them."""

    annotator: str
    typed: tuple[TypedAnswer, ...]
    where: str
    line: int
    seconds: float | None = None
    completed_at: datetime | None = None
    answers: Mapping[str, Any] = dataclass_field(default_factory=dict)
    #: when it was last changed there (None: not said)
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ImportedPrediction:
    """One model's prediction made elsewhere (a Label Studio task's prediction): `model` (its
    `model_version`; None: not named, or named ""), the label answers `typed`; `where` and `line` name it in
    errors. `item` (the item's id as imported, `item_field` the key it is read from) and `labels`
    (the values as the kind's page forms read them, by field) are set by the kind that reads it."""

    model: str | None
    typed: tuple[TypedAnswer, ...]
    where: str
    line: int
    item: str = ""
    item_field: str = "id"
    labels: Mapping[str, Any] = dataclass_field(default_factory=dict)
    #: the model's confidence and when it was made, as the file says (None: not said)
    score: float | None = None
    created_at: datetime | None = None


def generic_typed_answers(fields: Sequence[LabelField], row: Mapping[str, Any]) -> list[TypedAnswer]:
    """Each field's label in an annotation row by its level: nominal, ordinal and set labels as
    choices (their values as texts), interval labels as numbers; a field without a label, or with
    a value the level does not describe (a structure), is left out."""
    return typed_labels(fields, {field.name: field.value(row) for field in fields})


def typed_labels(fields: Sequence[LabelField], labels: Mapping[str, Any]) -> list[TypedAnswer]:
    """Label values by field name (an annotation's, a model's prediction) typed by each field's
    level, as `generic_typed_answers` says."""
    typed = []
    for field in fields:
        value = labels.get(field.name)
        if value is None or value == "" or value == []:
            continue
        if field.level == "interval":
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            typed.append(TypedAnswer(field.name, "number", value))
            continue
        values = value if isinstance(value, list | tuple) else [value]
        if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in values):
            typed.append(TypedAnswer(field.name, "choices", [str(v) for v in values]))
    return typed
