"""An adjudicator's own value of a field, typed as text: the format the page shows by the box
(and the browser checks as they type), and the parse that says why a value is not one. The
default of every kind, from its label field; a kind with fields of its own overrides
`TaskKind.adjudication_format` and `adjudication_value`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from annotation.structured_input import Refused, load_json

from .results import LabelField


@dataclass(frozen=True)
class ValueFormat:
    """How an adjudicator types their own value of a field: the hint shown by the box, an HTML
    `pattern` the browser checks as they type ("": none) and values it offers (a datalist).
    The server parses the value anyway (`TaskKind.adjudication_value`)."""

    hint: str
    pattern: str = ""
    suggestions: tuple[str, ...] = ()


def label_format(label: LabelField | None) -> ValueFormat:
    """One of an ordinal's levels, a number, a JSON list of a set, else any text."""
    if label is not None and label.order:
        levels = tuple(str(v) for v in label.order)
        return ValueFormat(_("One of: %(values)s") % {"values": ", ".join(levels)}, suggestions=levels)
    if label is not None and label.level == "interval":
        return ValueFormat(_("A number, e.g. 3 or 2.5"), pattern=r"\s*-?[0-9]+(\.[0-9]+)?\s*")
    if label is not None and label.level == "set":
        return ValueFormat(_("A list in JSON, e.g. [1, 2]"))
    return ValueFormat(_("The value as text"))


def label_value(label: LabelField | None, text: str) -> Any:
    """JSON when it parses (e.g. a number), else the text; an ordinal's levels, an interval's
    numbers and a set's lists only. Raises ValueError with the reason."""
    text = text.strip()
    if not text:
        raise ValueError(_("Type a value."))
    try:
        value = load_json(text)
    except Refused:  # not JSON, or JSON no database stores alike (NaN, 1e309, NUL...): the text
        value = text
    if label is not None and label.order:
        levels = {str(v): v for v in label.order}
        if text not in levels:
            raise ValueError(_("“%(text)s” is not one of: %(values)s.") % {"text": text, "values": ", ".join(levels)})
        return levels[text]
    if label is not None and label.level == "interval" and not _is_number(value):
        raise ValueError(_("“%(text)s” is not a number.") % {"text": text})
    if label is not None and label.level == "set" and not isinstance(value, list):
        raise ValueError(_("“%(text)s” is not a list in JSON, e.g. [1, 2].") % {"text": text})
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
