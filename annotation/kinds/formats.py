"""Readers shared by kinds for released file formats; errors name the line and field.

JSON goes through orjson (several times faster than the json module on 30 MB files) wherever
orjson gives exactly what the json module gives; where it would not (floats, integers beyond
64 bits, lone surrogates, NaN), the json module does the work, so results never depend on
which library ran.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import orjson

from annotation.structured_input import Refused, float_free, load_json

from .base import ImportProblem

#: what PostgreSQL cannot store in text or jsonb (NUL) and what is not Unicode text (lone surrogates)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def text_lines(text: str) -> list[str]:
    """The file's lines, split at LF only (a CR before it is dropped). Not str.splitlines():
    that also splits at U+2028, U+0085, form feeds... which released text may hold."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def jsonl_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; LF and CRLF both work."""
    # Split at LF only, as text_lines does, but keep a line's final CR: it is JSON whitespace,
    # and dropping it would copy the file once more. isspace() is strip()'s test, without a copy.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line or line.isspace():
            continue
        try:
            record = load_json(line, first_line=number)
        except Refused as exc:
            raise ImportProblem(exc.message, line=exc.line or number, field=exc.path) from None
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
    if float_free(record):
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
    if float_free(payload):
        try:
            return orjson.dumps(payload)
        except orjson.JSONEncodeError:  # ints beyond 64 bits, lone surrogates, non-str keys
            pass
    return json.dumps(payload).encode("ascii")
