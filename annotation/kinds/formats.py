"""Readers shared by kinds for released file formats; errors name the line and field.

JSON goes through orjson (several times faster than the json module on 30 MB files) wherever
orjson gives exactly what the json module gives; where it would not (floats, integers beyond
64 bits, lone surrogates, NaN), the json module does the work, so results never depend on
which library ran.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Iterator

import orjson

from .base import ImportProblem

_SCALARS = frozenset({str, int, bool, type(None)})


def text_lines(text: str) -> list[str]:
    """The file's lines, split at LF only (a CR before it is dropped). Not str.splitlines():
    that also splits at U+2028, U+0085, form feeds... which released text may hold."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _float_free(value: Any) -> bool:
    """True when `value` holds only dicts, lists, strings, ints, bools and None (exact types).

    orjson agrees with the json module on those, both reading and writing (out-of-range ints
    and lone surrogates make orjson raise, which callers catch); floats are where they part:
    orjson reads an integer beyond 64 bits as a float, writes 1e-07 as 1e-7 and NaN as null.
    """
    kind = type(value)
    if kind is dict:
        values: Any = value.values()
    elif kind is list:
        values = value
    else:
        return kind in _SCALARS
    for item in values:
        if type(item) not in _SCALARS and not _float_free(item):
            return False
    return True


def _json_value(line: str) -> Any:
    """json.loads(line), faster: orjson where it reads the same, the json module otherwise."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        # what orjson refuses (NaN, lone surrogates, deep nesting...) the json module may read;
        # if it cannot either, its error is the one imports have always shown
        return json.loads(line)
    return value if _float_free(value) else json.loads(line)


def jsonl_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; LF and CRLF both work."""
    # Split at LF only, as text_lines does, but keep a line's final CR: it is JSON whitespace,
    # and dropping it would copy the file once more. isspace() is strip()'s test, without a copy.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line or line.isspace():
            continue
        try:
            record = _json_value(line)
        except json.JSONDecodeError:
            line = line[:-1] if line.endswith("\r") else line
            try:  # the column as counted in the line without its CR
                json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportProblem(f"invalid JSON ({exc.msg} at column {exc.colno})", line=number) from None
            raise  # pragma: no cover - whitespace at the end never makes JSON valid
        if not isinstance(record, dict):
            raise ImportProblem(f"expected a JSON object, got {type(record).__name__}", line=number)
        yield number, record


def require_str(record: dict[str, Any], key: str, line: int, *, allow_empty: bool = False) -> str:
    if key not in record:
        raise ImportProblem("missing", line=line, field=key)
    value = record[key]
    if not isinstance(value, str):
        raise ImportProblem(f"must be a string, got {type(value).__name__}", line=line, field=key)
    if not allow_empty and not value.strip():
        raise ImportProblem("is empty", line=line, field=key)
    return value


def canonical_json(record: dict[str, Any]) -> bytes:
    """The form content ids hash: exactly
    `json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))` in UTF-8,
    since a changed byte would give items imported before a new id (and a re-import duplicates)."""
    if _float_free(record):
        try:
            return orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # ints beyond 64 bits, lone surrogates, non-str keys
            pass
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def content_id(record: dict[str, Any]) -> str:
    """A stable id for records released without one, so a re-import finds the same item."""
    return "sha1:" + hashlib.sha1(canonical_json(record)).hexdigest()[:20]


def payload_json(payload: Any) -> bytes:
    """`payload` as JSON text (UTF-8) for the database, read back by json.loads as exactly
    `payload`; the JSON Django's JSONField would write wherever orjson could differ."""
    if _float_free(payload):
        try:
            return orjson.dumps(payload)
        except orjson.JSONEncodeError:  # ints beyond 64 bits, lone surrogates, non-str keys
            pass
    return json.dumps(payload).encode("ascii")
