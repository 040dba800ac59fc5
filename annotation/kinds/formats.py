"""Readers shared by kinds for released file formats; errors name the line and field.

JSON goes through orjson (several times faster than the json module on 30 MB files) wherever
orjson gives exactly what the json module gives; where it would not (floats, integers beyond
64 bits, lone surrogates, NaN), the json module does the work, so results never depend on
which library ran.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from typing import Any, Literal

import orjson

from .base import ImportProblem

_SCALARS = frozenset({str, int, bool, type(None)})
#: deeper than any released dataset nests; also keeps the json module far from its recursion limit
MAX_DEPTH = 64
#: what PostgreSQL cannot store in text or jsonb (NUL) and what is not Unicode text (lone surrogates)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: JSON's strings and brackets, enough to measure nesting without parsing
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:]')


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
    return all(type(item) in _SCALARS or _float_free(item) for item in values)


def field_path(path: tuple[Any, ...]) -> str | None:
    """`("meta", "tags", 3)` as `meta.tags[3]`: the field an error names (None: the record itself)."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or None


def value_problem(value: Any) -> tuple[str, str | None] | None:
    """(what is wrong, where) for the first part of `value` that no database stores alike: NaN or
    Infinity (not JSON; PostgreSQL's jsonb refuses them), NUL (PostgreSQL refuses it in text and
    jsonb, SQLite keeps it), a lone surrogate (not Unicode text), nesting deeper than MAX_DEPTH.
    None when all is well. Iterative, so no nesting can exhaust the stack; containers only go on
    the stack (scalars are checked in place: this runs for every imported record)."""
    if type(value) is not dict and type(value) is not list:
        return _scalar_problem(value, ())
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) >= MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep", field_path(path[:1])  # as _deep_field
        if type(node) is dict:
            if _text_problem("".join(node)):
                key, problem = next((key, problem) for key in node if (problem := _text_problem(key)))
                return "the key: " + problem, field_path((*path, key))
            pairs: Any = node.items()
        else:
            pairs = enumerate(node)
        for key, item in pairs:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, (*path, key)))
            elif (kind is str and _text_problem(item)) or (kind is float and not math.isfinite(item)):
                return _scalar_problem(item, (*path, key))
    return None


def _scalar_problem(value: Any, path: tuple[Any, ...]) -> tuple[str, str | None] | None:
    if type(value) is str:
        problem = _text_problem(value)
        return (problem, field_path(path)) if problem else None
    if type(value) is float and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"{name} is not a JSON number", field_path(path)
    return None


def _text_problem(text: str) -> str | None:
    """NUL or a lone surrogate in `text`, described; None when there is neither. (A regular
    expression over every string is slow on a large import; `in` and isascii() are
    near free, and only non-ASCII text can hold a surrogate.)"""
    if "\x00" in text:
        return "a NUL character (\\u0000) is not allowed in text"
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found:
            return f"a lone surrogate (\\u{ord(found.group()):04x}) is not Unicode text"
    return None


def _deep_field(line: str) -> str | None | Literal[False]:
    """The top-level field under which `line` nests deeper than MAX_DEPTH (None: the record
    itself), or False when it does not; measured without parsing, so any depth is safe."""
    depth, key, last = 0, None, ""
    for token in _JSON_TOKENS.finditer(line):
        text = token.group()
        if text in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return key if depth > 1 else None
        elif text in "]}":
            depth -= 1
        elif text == ":":
            if depth == 1:
                key = last
        else:
            last = text[1:-1]
    return False


def _json_value(line: str) -> Any:
    """json.loads(line), faster: orjson where it reads the same, the json module otherwise.

    Raises ValueError (json.JSONDecodeError among them) for what is not JSON, and _TooDeep."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        # what orjson refuses (NaN, lone surrogates, deep nesting...) the json module may read;
        # if it cannot either, its error is the one imports have always shown
        deep = _deep_field(line)
        if deep is not False:
            raise _TooDeep(deep) from None
        return _storable(json.loads(line))
    # orjson refuses NaN, lone surrogates and nesting past 1024; NUL (only as the escape \u0000)
    # and nesting past MAX_DEPTH remain, possible only where the line has them or many brackets
    if "\\u0000" in line or line.count("[") + line.count("{") > MAX_DEPTH:
        _storable(value)  # before _float_free, which recurses
    return value if _float_free(value) else json.loads(line)


def _storable(value: Any) -> Any:
    problem = value_problem(value)
    if problem:
        raise _Unstorable(*problem)
    return value


class _Unstorable(Exception):
    def __init__(self, message: str, field: str | None):
        self.message, self.field = message, field


class _TooDeep(Exception):
    def __init__(self, field: str | None):
        self.field = field


def jsonl_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; LF and CRLF both work."""
    # Split at LF only, as text_lines does, but keep a line's final CR: it is JSON whitespace,
    # and dropping it would copy the file once more. isspace() is strip()'s test, without a copy.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line or line.isspace():
            continue
        try:
            record = _json_value(line)
        except _TooDeep as exc:
            raise ImportProblem(f"nested more than {MAX_DEPTH} levels deep", line=number, field=exc.field) from None
        except _Unstorable as exc:
            raise ImportProblem(exc.message, line=number, field=exc.field) from None
        except json.JSONDecodeError:
            line = line[:-1] if line.endswith("\r") else line
            try:  # the column as counted in the line without its CR
                json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportProblem(f"invalid JSON ({exc.msg} at column {exc.colno})", line=number) from None
            raise  # pragma: no cover - whitespace at the end never makes JSON valid
        except ValueError as exc:  # an integer of more digits than Python converts (4,300)
            raise ImportProblem(f"invalid JSON ({exc})", line=number) from None
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
