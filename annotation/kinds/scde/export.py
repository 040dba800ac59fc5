"""SCDE answers written back in the released format's terms, so the researcher's own SCDE
scripts (which read `answer_sequence`) can score workers exactly as they score models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def answer_sequence(choices: Mapping[Any, Any]) -> list[list[int]]:
    """{blank: candidate id} (int or digit-string keys, as stored JSON gives them) as the released
    `[[blank, candidate_id], ...]`, in blank order; blanks left empty (None) are left out."""
    pairs = [(int(blank), int(candidate)) for blank, candidate in choices.items() if candidate is not None]
    return [[blank, candidate] for blank, candidate in sorted(pairs)]


def gold_sequence(payload: Mapping[str, Any]) -> list[list[int]] | None:
    """The passage's own answer key as `answer_sequence`, or None when it is unlabeled."""
    gold = payload.get("gold")
    return None if gold is None else answer_sequence(gold)


def released_record(payload: Mapping[str, Any], *, answers: Mapping[Any, Any] | None = None) -> dict[str, Any]:
    """The passage as a released record. `answers` (a worker's {blank: candidate id}) stands in
    for the gold `answer_sequence`; without it the gold is written when the passage has one."""
    sequence = gold_sequence(payload) if answers is None else answer_sequence(answers)
    record: dict[str, Any] = {
        "passage": [f"<{p['blank']}>" if "blank" in p else p["text"] for p in payload["pieces"]],
        "candidates": list(payload["candidates"]),
    }
    if sequence is not None:
        record["answer_sequence"] = sequence
    record["number_of_blanks"] = len(payload["blanks"])
    record["candidate_length"] = len(payload["candidates"])
    record["eid"] = payload["eid"]
    return record
