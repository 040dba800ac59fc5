"""SCDE's released files (`train.json`, `dev.json`, `test.json`) read into items.

Each file is a JSON list of passages. A passage's `passage` is a list of sentences in which a
blank is an element that is exactly `<1>`, `<2>`, ...; `answer_sequence` pairs a blank number
(1-based) with a candidate id (0-based). A file is read whole and checked whole before any item
is returned, so a bad passage anywhere imports nothing. Problems name the passage by its
position in the list, counting from 1, since the files have no line structure to point at.

Payload of an item:
- `eid`: the released id (int or str, as released);
- `pieces`: the passage in order, each `{"text": sentence}` or `{"blank": n}`;
- `blanks`: the blank numbers in the order they appear;
- `candidates`: the candidate sentences, indexed by candidate id;
- labeled passages only: `gold` (`{"n": candidate id}`, keys are strings so the payload
  survives JSON unchanged) and `distractors` (sorted ids of the candidates no blank uses).
"""

from __future__ import annotations

import re
from typing import Any

from annotation.structured_input import Refused, load_json

from ..base import ImportProblem, ParsedItem

MARKER = re.compile(r"<([0-9]+)>")
REQUIRED = ("eid", "passage", "candidates", "number_of_blanks", "candidate_length")


class PassageProblem(ImportProblem):
    """A bad passage: names its position in the file's list (from 1) and the field."""

    def __init__(self, message: str, *, passage: int, field: str | None = None):
        self.passage = passage
        super().__init__(message, field=field)

    def __str__(self) -> str:
        where = f"passage {self.passage} (counting from 1)"
        if self.field is not None:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


def parse_records(text: str) -> list[ParsedItem]:
    """Every passage of a released file as an item; raise ImportProblem at the first bad one.

    `ParsedItem.line` holds the passage's position (from 1). A BOM and CRLF line ends are fine.
    """
    records = _json_list(text.removeprefix("\ufeff"))
    items: list[ParsedItem] = []
    first_seen: dict[str, int] = {}
    for index, record in enumerate(records, start=1):
        payload = passage_payload(record, index)
        external_id = str(payload["eid"])
        if external_id in first_seen:
            raise PassageProblem(
                f"{external_id!r} is also the eid of passage {first_seen[external_id]}", passage=index, field="eid"
            )
        first_seen[external_id] = index
        items.append(ParsedItem(external_id=external_id, payload=payload, line=index))
    return items


def _json_list(text: str) -> list[Any]:
    try:
        value = load_json(text)
    except Refused as exc:
        raise ImportProblem(exc.message, line=exc.line, field=exc.path) from None
    if not isinstance(value, list):
        raise ImportProblem(f"expected a JSON list of passages, got {_type(value)}")
    return value


def passage_payload(record: Any, index: int) -> dict[str, Any]:
    """One released passage checked and turned into an item payload (see the module docstring)."""
    if not isinstance(record, dict):
        raise PassageProblem(f"expected a JSON object, got {_type(record)}", passage=index)
    for key in REQUIRED:
        if key not in record:
            raise PassageProblem("missing", passage=index, field=key)
    eid = record["eid"]
    if isinstance(eid, bool) or not isinstance(eid, (int, str)) or eid == "":
        raise PassageProblem(f"must be an integer or a non-empty string, got {eid!r}", passage=index, field="eid")
    sentences = _strings(record, "passage", index)
    candidates = _strings(record, "candidates", index)
    blanks = _blanks(sentences, index)
    declared = record["number_of_blanks"]
    if _is_int(declared) and declared > len(blanks):
        raise PassageProblem(
            f"blank marker <{len(blanks) + 1}> is missing from the passage{_inside_hint(sentences, len(blanks) + 1)} "
            f"(number_of_blanks is {declared}, the passage has <1> to <{len(blanks)}>)",
            passage=index,
            field="passage",
        )
    _count(record, "number_of_blanks", len(blanks), "blank markers in the passage", index)
    _count(record, "candidate_length", len(candidates), "candidates", index)
    if len(candidates) < len(blanks):
        raise PassageProblem(
            f"{len(candidates)} candidates cannot fill {len(blanks)} blanks, each used at most once",
            passage=index,
            field="candidates",
        )
    payload: dict[str, Any] = {
        "eid": eid,
        "pieces": [{"blank": int(s[1:-1])} if MARKER.fullmatch(s) else {"text": s} for s in sentences],
        "blanks": blanks,
        "candidates": candidates,
    }
    if record.get("answer_sequence") is not None:
        gold = _gold(record["answer_sequence"], blanks, len(candidates), index)
        payload["gold"] = {str(blank): gold[blank] for blank in sorted(gold)}
        payload["distractors"] = sorted(set(range(len(candidates))) - set(gold.values()))
    return payload


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(record: dict[str, Any], key: str, index: int) -> list[str]:
    value = record[key]
    if not isinstance(value, list) or not value:
        raise PassageProblem(f"must be a non-empty list of strings, got {_type(value)}", passage=index, field=key)
    for position, element in enumerate(value, start=1):
        if not isinstance(element, str) or not element.strip():
            raise PassageProblem(
                f"element {position} must be a non-empty string, got {element!r}", passage=index, field=key
            )
    return value


def _count(record: dict[str, Any], key: str, actual: int, what: str, index: int) -> None:
    value = record[key]
    if not _is_int(value):
        raise PassageProblem(f"must be an integer, got {_type(value)}", passage=index, field=key)
    if value != actual:
        raise PassageProblem(f"is {value} but there are {actual} {what}", passage=index, field=key)


def _blanks(sentences: list[str], index: int) -> list[int]:
    """The blank numbers in passage order; they must be 1..n, each exactly once."""
    where: dict[int, int] = {}
    for position, sentence in enumerate(sentences, start=1):
        match = MARKER.fullmatch(sentence)
        if match is None:
            continue
        number = int(match.group(1))
        if number in where:
            raise PassageProblem(
                f"blank marker <{number}> appears twice (elements {where[number]} and {position})",
                passage=index,
                field="passage",
            )
        where[number] = position
    if not where:
        raise PassageProblem(
            "has no blank marker (an element that is exactly '<1>', '<2>', ...)", passage=index, field="passage"
        )
    for number in range(1, len(where) + 1):
        if number not in where:
            found = ", ".join(f"<{n}>" for n in sorted(where))
            raise PassageProblem(
                f"blank marker <{number}> is missing from the passage{_inside_hint(sentences, number)}; "
                f"blanks are numbered 1 to n without gaps (found {found})",
                passage=index,
                field="passage",
            )
    return list(where)


def _inside_hint(sentences: list[str], number: int) -> str:
    marker = f"<{number}>"
    for position, sentence in enumerate(sentences, start=1):
        if marker in sentence:
            return f" as an element of its own (element {position} holds it inside other text)"
    return ""


def _gold(sequence: Any, blanks: list[int], n_candidates: int, index: int) -> dict[int, int]:
    """`answer_sequence` as {blank: candidate id}: every blank once, every candidate at most once."""
    field = "answer_sequence"
    if not isinstance(sequence, list):
        raise PassageProblem(
            f"must be a list of [blank, candidate_id] pairs, got {_type(sequence)}", passage=index, field=field
        )
    gold: dict[int, int] = {}
    blank_of: dict[int, int] = {}
    for position, pair in enumerate(sequence, start=1):
        if not isinstance(pair, list) or len(pair) != 2 or not all(_is_int(v) for v in pair):
            raise PassageProblem(
                f"element {position} must be a pair of integers [blank, candidate_id], got {pair!r}",
                passage=index,
                field=field,
            )
        blank, candidate = pair
        if blank not in blanks:
            raise PassageProblem(
                f"element {position} answers blank {blank}, but the passage has no blank marker <{blank}>",
                passage=index,
                field=field,
            )
        if blank in gold:
            raise PassageProblem(f"blank {blank} is answered twice", passage=index, field=field)
        if not 0 <= candidate < n_candidates:
            raise PassageProblem(
                f"element {position} points to candidate {candidate}, outside the {n_candidates} candidates (ids 0 to {n_candidates - 1})",
                passage=index,
                field=field,
            )
        if candidate in blank_of:
            raise PassageProblem(
                f"blanks {blank_of[candidate]} and {blank} have the same answer, candidate {candidate}",
                passage=index,
                field=field,
            )
        gold[blank], blank_of[candidate] = candidate, blank
    missing = [b for b in blanks if b not in gold]
    if missing:
        raise PassageProblem(
            f"answers {len(gold)} of {len(blanks)} blanks (no answer for {', '.join(map(str, missing))})",
            passage=index,
            field=field,
        )
    return gold
