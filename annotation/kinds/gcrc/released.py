"""An annotation in GCRC's terms: the kind's columns (declared once) and the released format.

Columns per option x in a-d: `x_evidence` (the numbers of the item's sentences as the pages show
them, from 1, in passage order), `x_evidence_text` (those sentences verbatim, joined by a line break: a sentence never
holds one, so the list can be read back), `x_skill`, `x_wrong`, `x_error`. Then `answer` (the one
the annotator worked with) and `reference` (the imported labels as JSON, or empty; its
`evidence_sentences` numbered from 1 too).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..base import Column
from ..results import LabelField
from .forms import item_answer
from .labels import OPTION_LETTERS

EVIDENCE_SEPARATOR = "\n"
#: the item's fields in the released files, in the files' order; the derivative's after them
RELEASED_ITEM_KEYS = ("id", "title", "passage", "question", "options")
LABEL_KEYS = ("answer", "evidences", "error_type", "reasoning_ability")
ADVROBUST_KEYS = ("positive_options", "positive_answer", "negative_question", "negative_options", "negative_answer")
#: what import adds to the released object (not written back)
ADDED_KEYS = ("sentences", "reference")


def option_page(letter: str) -> str:
    return f"option_{letter.lower()}"


def _option_answer(answers: Mapping[str, Any], letter: str) -> dict[str, Any]:
    return answers.get(option_page(letter)) or {}


def evidence_sentences(payload: Mapping[str, Any], answers: Mapping[str, Any], letter: str) -> list[str] | None:
    """The option's supporting sentences, verbatim; None before its page is saved."""
    chosen = _option_answer(answers, letter).get("evidence")
    if chosen is None:
        return None
    sentences = payload["sentences"]
    return [sentences[i]["text"] for i in chosen]


def _evidence_text(payload: Mapping[str, Any], answers: Mapping[str, Any], letter: str) -> str | None:
    found = evidence_sentences(payload, answers, letter)
    return None if found is None else EVIDENCE_SEPARATOR.join(found)


def _numbered(indexes: list[int | None] | None) -> list[int | None] | None:
    """Sentence indexes (from 0, as stored) as the pages number the sentences (from 1)."""
    return None if indexes is None else [None if i is None else i + 1 for i in indexes]


def _evidence_numbers(payload: Mapping[str, Any], answers: Mapping[str, Any], letter: str) -> list[int | None] | None:
    return _numbered(_option_answer(answers, letter).get("evidence"))


def _reference_json(payload: Mapping[str, Any]) -> str | None:
    reference = payload.get("reference")
    if reference is None:
        return None
    if "evidence_sentences" in reference:
        reference = {**reference, "evidence_sentences": [_numbered(o) for o in reference["evidence_sentences"]]}
    return json.dumps(reference, ensure_ascii=False, sort_keys=True)


def _option_columns(letter: str) -> tuple[Column, ...]:
    page, x = option_page(letter), letter.lower()
    return (
        Column(f"{x}_evidence", lambda p, a: _evidence_numbers(p, a, letter)),
        Column(f"{x}_evidence_text", lambda p, a: _evidence_text(p, a, letter), payload_keys=("sentences",)),
        Column.answer(f"{x}_skill", page, "skill"),
        Column.answer(f"{x}_wrong", page, "wrong"),
        Column.answer(f"{x}_error", page, "error"),
    )


COLUMNS: tuple[Column, ...] = (
    Column("answer", lambda p, a: item_answer(p, a), payload_keys=("reference",)),
    *(column for letter in OPTION_LETTERS for column in _option_columns(letter)),
    Column("reference", lambda p, a: _reference_json(p), payload_keys=("reference",)),
)


def labels_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """An annotation row (as `COLUMNS` make it) as the released label fields."""
    evidences = []
    for letter in OPTION_LETTERS:
        text = row.get(f"{letter.lower()}_evidence_text")
        evidences.append(text.split(EVIDENCE_SEPARATOR) if text else [])
    return {
        "answer": row.get("answer") or "",
        "evidences": evidences,
        "error_type": [row.get(f"{x.lower()}_error") or "" for x in OPTION_LETTERS],
        "reasoning_ability": [row.get(f"{x.lower()}_skill") or "" for x in OPTION_LETTERS],
    }


def released_item(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The item as its file gave it: the released keys in the files' order, then any others
    (the derivative's), without what import added."""
    row = {key: payload[key] for key in (*RELEASED_ITEM_KEYS, *LABEL_KEYS, *ADVROBUST_KEYS) if key in payload}
    known = set(row) | set(ADDED_KEYS)
    row.update((key, value) for key, value in payload.items() if key not in known)
    return row


def _label(column: str) -> Callable[[Mapping[str, Any]], Any]:
    """An option's label from its annotation column; empty (no error reason, no sentence) is no label."""

    def value(row: Mapping[str, Any]) -> Any:
        found = row.get(column)
        return found if found not in (None, "", []) else None

    return value


#: agreement and aggregation fields, per option: its reasoning skill, its error reason (for the
#: options marked wrong) and its supporting sentences (a set: MASI-distance alpha)
LABEL_FIELDS = tuple(
    field
    for letter in OPTION_LETTERS
    for field in (
        LabelField(f"{letter.lower()}_skill", "nominal", _label(f"{letter.lower()}_skill"), title=f"{letter}: skill"),
        LabelField(
            f"{letter.lower()}_error", "nominal", _label(f"{letter.lower()}_error"), title=f"{letter}: error reason"
        ),
        LabelField(
            f"{letter.lower()}_evidence",
            "set",
            _label(f"{letter.lower()}_evidence"),
            title=f"{letter}: supporting sentences",
        ),
    )
)
