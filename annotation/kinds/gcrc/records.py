"""Read GCRC's released JSON (`{"data": [...]}`) into items for import.

Every item is checked before anything is returned, so an import is all or nothing. Errors are
ImportProblems whose `line` is the item's number in "data" (1-based), not a line of the file:
the released files are one pretty-printed document, where item numbers are what a researcher
can find. The message says so.

An item's payload is the released object as it was (text exactly as in the file; the fields of
the adversarial-robustness derivative kept as they are), plus:
- `sentences`: the passage split by `sentences.split_sentences`, as {text, start, end};
- `reference` (labeled files only): the labels normalised to codes, with each evidence
  sentence's index in `sentences` (None where it is not one of them).
"""

from __future__ import annotations

from typing import Any

from annotation.structured_input import Refused, load_json

from ..base import ImportProblem, ParsedItem
from .labels import OPTION_LETTERS, error_code, skill_code
from .sentences import sentence_dicts

LABEL_FIELDS = ("answer", "evidences", "error_type", "reasoning_ability")


def _problem(number: int, field: str, message: str) -> ImportProblem:
    return ImportProblem(f'{message} (item {number} of "data", counted from 1)', line=number, field=field)


def _document(text: str) -> list[Any]:
    try:
        document = load_json(text.removeprefix("\ufeff"))
    except Refused as exc:
        raise ImportProblem(exc.message, line=exc.line, field=exc.path) from None
    if not isinstance(document, dict):
        raise ImportProblem(f'expected a JSON object with "data", got {type(document).__name__}')
    if "data" not in document:
        raise ImportProblem('missing: the file\'s object has no "data" list', field="data")
    if not isinstance(document["data"], list):
        raise ImportProblem(f"must be a list, got {type(document['data']).__name__}", field="data")
    return document["data"]


def _text(record: dict[str, Any], key: str, number: int, *, allow_empty: bool = False) -> str:
    if key not in record:
        raise _problem(number, key, "missing")
    value = record[key]
    if not isinstance(value, str):
        raise _problem(number, key, f"must be a string, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise _problem(number, key, "is empty")
    return value


def _four(record: dict[str, Any], key: str, number: int, kind: type) -> list[Any]:
    """A list of exactly four values of `kind`, one per option."""
    value = record[key]
    if not isinstance(value, list) or len(value) != 4:
        found = f"{len(value)} entries" if isinstance(value, list) else type(value).__name__
        raise _problem(number, key, f"must be a list of 4 entries, one per option A-D; got {found}")
    for letter, entry in zip(OPTION_LETTERS, value):
        if not isinstance(entry, kind):
            raise _problem(number, key, f"option {letter}: must be a {kind.__name__}, got {type(entry).__name__}")
    return value


def _check_item(record: Any, number: int) -> None:
    if not isinstance(record, dict):
        raise ImportProblem(
            f'expected a JSON object, got {type(record).__name__} (item {number} of "data", counted from 1)',
            line=number,
        )
    _text(record, "id", number)
    _text(record, "title", number, allow_empty=True)
    _text(record, "passage", number)
    _text(record, "question", number)
    if "options" not in record:
        raise _problem(number, "options", "missing")
    for letter, option in zip(OPTION_LETTERS, _four(record, "options", number, str)):
        if not option.strip():
            raise _problem(number, "options", f"option {letter} is empty")


def _codes(values: list[str], convert: Any, number: int, field: str, what: str) -> list[str]:
    codes = []
    for letter, value in zip(OPTION_LETTERS, values):
        try:
            codes.append(convert(value))
        except KeyError:
            raise _problem(number, field, f"option {letter}: unknown {what} {value!r}") from None
    return codes


def _reference(record: dict[str, Any], number: int, sentences: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The item's labels normalised to codes, or None when the file has none."""
    if not any(key in record for key in LABEL_FIELDS):
        return None
    reference: dict[str, Any] = {}
    if "answer" in record:
        answer = record["answer"]
        if answer not in OPTION_LETTERS:
            raise _problem(number, "answer", f"must be one of A, B, C, D; got {answer!r}")
        reference["answer"] = answer
    if "evidences" in record:
        evidences = _four(record, "evidences", number, list)
        for letter, sentences_of_option in zip(OPTION_LETTERS, evidences):
            if not all(isinstance(sentence, str) for sentence in sentences_of_option):
                raise _problem(number, "evidences", f"option {letter}: must be a list of strings (sentences)")
        index = {sentence["text"]: i for i, sentence in reversed(list(enumerate(sentences)))}
        reference["evidences"] = [list(option) for option in evidences]
        reference["evidence_sentences"] = [[index.get(s.strip()) for s in option] for option in evidences]
    if "error_type" in record:
        values = _four(record, "error_type", number, str)
        reference["error_type"] = _codes(values, error_code, number, "error_type", "error type")
    if "reasoning_ability" in record:
        values = _four(record, "reasoning_ability", number, str)
        reference["reasoning_ability"] = _codes(values, skill_code, number, "reasoning_ability", "reasoning skill")
    return reference


def parse_records(text: str) -> list[ParsedItem]:
    """Items of a released GCRC file (already decoded; a BOM and CRLF are fine), all checked.
    Raises ImportProblem naming the item number and field at the first bad item."""
    items: list[ParsedItem] = []
    first_seen: dict[str, int] = {}
    for number, record in enumerate(_document(text), start=1):
        _check_item(record, number)
        external_id = record["id"]
        if external_id in first_seen:
            raise _problem(number, "id", f"duplicate id {external_id!r}, first used by item {first_seen[external_id]}")
        first_seen[external_id] = number
        sentences = sentence_dicts(record["passage"])
        payload = dict(record)
        payload["sentences"] = sentences
        reference = _reference(record, number, sentences)
        if reference is not None:
            payload["reference"] = reference
        items.append(ParsedItem(external_id=external_id, payload=payload, line=number))
    return items
