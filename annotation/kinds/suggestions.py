"""A model's labels shown on an annotator's page (a batch's `suggestions`): which of a page's
questions a label field's suggestion goes beside, the form's data that pre-selects it, the words
the annotator reads, and whether the saved answer kept it. A kind says where each label field is
asked (`TaskKind.suggestion_places`, or its own `TaskKind.suggestions`); the rest is generic."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Page, PageForm, TaskKind

#: a label value that suggests nothing (no answer to pre-select)
EMPTY: tuple[Any, ...] = (None, "", [])


@dataclass(frozen=True)
class Suggestion:
    """One label field's suggestion on one page: `question` is the form field it is shown beside,
    `value` the model's label (as a prediction holds it), `initial` the form's data that
    pre-selects it (by form field), `text` what the annotator reads."""

    field: str
    question: str
    value: Any
    initial: Mapping[str, Any]
    text: str


@dataclass(frozen=True)
class Place:
    """Where a label field is asked: the page and its form's field; `initial` turns the label into
    the form's data (default: the form field takes the label as it is)."""

    page: str
    question: str
    initial: Callable[[Any], Mapping[str, Any]] | None = None


def choice_text(form: PageForm, question: str, value: Any) -> str:
    """A value as the form field shows it: a choice's words (several joined by "; "), else the value."""
    choices = getattr(form.fields[question], "choices", None)
    words = {str(key): str(label) for key, label in choices or ()}
    given = value if isinstance(value, list) else [value]
    return "; ".join(words.get(str(v), str(v)) for v in given)


def placed(page: Page, form: PageForm, labels: Mapping[str, Any], places: Mapping[str, Place]) -> list[Suggestion]:
    """The suggestions of the label fields `places` puts on `page` that its `form` asks."""
    found = []
    for field, place in places.items():
        value = labels.get(field)
        if place.page != page.slug or place.question not in form.fields or value in EMPTY:
            continue
        initial = place.initial(value) if place.initial else {place.question: value}
        text = choice_text(form, place.question, initial.get(place.question, value))
        found.append(Suggestion(field, place.question, value, initial, text))
    return found


def kept_record(
    kind: TaskKind,
    payload: Mapping[str, Any],
    answers: Mapping[str, Any],
    suggestions: Sequence[Suggestion],
    model: str,
) -> dict[str, dict[str, Any]]:
    """{field: {model, value, kept}} of the suggestions shown with a page, once its answer is in
    `answers`: kept when the annotator's label of the field (read as a quality run reads it) is
    the model's (`TaskKind.same`: sets and spans compared as sets)."""
    if not suggestions:
        return {}
    row = kind.annotation_row(payload, answers)
    fields = {f.name: f for f in kind.label_fields()}
    record = {}
    for suggestion in suggestions:
        declared = fields.get(suggestion.field)
        given = None if declared is None else declared.value(row)
        kept = given is not None and kind.same(suggestion.field, _plain(given), _plain(suggestion.value))
        record[suggestion.field] = {"model": model, "value": suggestion.value, "kept": kept}
    return record


def _plain(value: Any) -> Any:
    """A label as compared: a list of texts and numbers as itself, a tuple as a list."""
    return list(value) if isinstance(value, tuple) else value


def initial_of(suggestions: Iterable[Suggestion]) -> dict[str, Any]:
    """The form's initial data that pre-selects every suggestion."""
    initial: dict[str, Any] = {}
    for suggestion in suggestions:
        initial.update(suggestion.initial)
    return initial
