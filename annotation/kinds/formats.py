"""Readers shared by kinds for released file formats; errors name the line and field."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Iterator

from .base import ImportProblem


def text_lines(text: str) -> list[str]:
    """The file's lines, split at LF only (a CR before it is dropped). Not str.splitlines():
    that also splits at U+2028, U+0085, form feeds... which released text may hold."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def jsonl_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; LF and CRLF both work."""
    for number, line in enumerate(text_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportProblem(f"invalid JSON ({exc.msg} at column {exc.colno})", line=number) from None
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


def content_id(record: dict[str, Any]) -> str:
    """A stable id for records released without one, so a re-import finds the same item."""
    canonical = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha1:" + hashlib.sha1(canonical.encode("utf-8")).hexdigest()[:20]
