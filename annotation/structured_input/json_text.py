"""JSON text into plain values under the rules (see the package's docstring). JSON goes through
orjson wherever orjson reads exactly what the json module reads (see `float_free`); the json
module does the rest, so a result never depends on which library ran."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from .rules import (
    INT_BOUND,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    Refused,
    check_size,
    float_free,
    key_path,
    number_problem,
    text_problem,
    top_key,
    value_problem,
)

#: JSON's tokens, enough to find where a problem is without parsing
_ELEMENT_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}:,\n]|[^\s\[\]{}:,"]+')
_JSON_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}:,\n]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|-?Infinity|NaN')


class _Hook(Exception):
    """A number the json module's hooks refuse; located afterwards by `_locate`."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Hook
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Hook
    return value


def _parse_constant(text: str) -> float:
    raise _Hook


def load_json(text: str, *, limit: int | None = None, first_line: int = 1, check_text: bool = True) -> Any:
    """The JSON value of `text`, exactly as json.loads reads it, or Refused naming the line
    (counted from `first_line`) and key path of the first problem. `check_text` False leaves NUL
    and surrogates to the caller (the API: each field's schema says what text it takes)."""
    if limit is not None:
        check_size(text, limit)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _slow(text, first_line, check_text)  # what orjson refuses: NaN, surrogates, depth, or not JSON
    # orjson refuses NaN, lone surrogates and nesting past 1024; NUL (only as the escape \u0000)
    # and nesting past MAX_DEPTH remain, possible only where the text has them or many brackets
    if (check_text and "\\u0000" in text) or text.count("[") + text.count("{") > MAX_DEPTH:
        problem = value_problem(value, text=check_text)
        if problem:
            _locate(text, first_line, check_text)
            raise Refused(problem[0], path=problem[1])
    return value if float_free(value) else _slow(text, first_line, check_text)


def json_array(text: str, *, limit: int | None = None) -> list[tuple[int, Any]]:
    """(line it starts on, value) of each element of the JSON array `text`; Refused when `text`
    is not a JSON array or breaks a rule."""
    value = load_json(text, limit=limit)
    if not isinstance(value, list):
        raise Refused(f"expected a JSON array, got {type(value).__name__}", line=1)
    return list(zip(_element_lines(text), value, strict=True))


def _element_lines(text: str) -> list[int]:
    """The line each element of the (valid) JSON array `text` starts on."""
    lines, depth, line, expecting = [], 0, 1, False
    for token in _ELEMENT_TOKENS.finditer(text):
        first = token.group()[0]
        if first == "\n":
            line += 1
            continue
        if expecting and first not in "]":
            lines.append(line)
        expecting = False
        if first in "[{":
            depth += 1
            expecting = depth == 1
        elif first in "]}":
            depth -= 1
        elif first == "," and depth == 1:
            expecting = True
    return lines


def _slow(text: str, first_line: int, check_text: bool = True) -> Any:
    _locate(text, first_line, check_text)  # raises for the first problem it sees
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError:
        raise _invalid(text, first_line) from None
    except (_Hook, RecursionError, ValueError):  # pragma: no cover - _locate saw them first
        raise Refused("not a JSON document this platform reads", line=first_line) from None
    problem = value_problem(value, text=check_text)
    if problem:
        raise Refused(problem[0], path=problem[1])
    return value


def _invalid(text: str, first_line: int) -> Refused:
    """What the json module says is wrong with `text`; a final CR (JSON Lines with CRLF) left
    out, so the column is the one an editor shows."""
    try:
        json.loads(text.removesuffix("\r"))
    except json.JSONDecodeError as exc:
        return Refused(f"invalid JSON ({exc.msg} at column {exc.colno})", line=exc.lineno + first_line - 1)
    return Refused("invalid JSON", line=first_line)  # pragma: no cover - a final CR never breaks JSON


def _locate(text: str, first_line: int, check_text: bool = True) -> None:
    """Raises Refused at the first token of `text` that breaks a rule (nesting, a number, a
    string's NUL or surrogate), with its line and key path; without parsing, so safe at any depth."""
    line = first_line
    frames: list[list[Any]] = []  # [is_object, key or index]
    last = ""
    for token in _JSON_TOKENS.finditer(text):
        tok = token.group()
        first = tok[0]
        if first == "\n":
            line += 1
        elif first in "[{":
            if len(frames) >= MAX_DEPTH:
                raise Refused(f"nested more than {MAX_DEPTH} levels deep", line=line, path=top_key(_path(frames)))
            frames.append([first == "{", None if first == "{" else 0])
        elif first in "]}":
            if frames:
                frames.pop()
        elif first == ":":
            if frames and frames[-1][0]:
                frames[-1][1] = last
        elif first == ",":
            if frames and not frames[-1][0]:
                frames[-1][1] += 1
        elif first == '"':
            last = tok[1:-1]
            if check_text and ("\\" in tok or not tok.isascii()):
                try:
                    last = json.loads(tok)
                except ValueError:
                    continue
                problem = text_problem(last)
                if problem:
                    is_key = text[token.end() : token.end() + 40].lstrip().startswith(":")
                    path = (_path(frames[:-1]) + (last,)) if is_key else _path(frames)
                    raise Refused(("the key: " if is_key else "") + problem, line=line, path=key_path(path))
        else:
            number: Any = (
                float(tok.replace("NaN", "nan"))
                if not tok.lstrip("-").isdigit()
                else (len(tok.lstrip("-")) > MAX_INT_DIGITS and INT_BOUND)
            )
            problem = number_problem(number) if number is not False else None
            if problem:
                raise Refused(
                    f"{tok[:20]}{'…' if len(tok) > 20 else ''}: {problem}", line=line, path=key_path(_path(frames))
                )


def _path(frames: list[list[Any]]) -> tuple[Any, ...]:
    return tuple(frame[1] for frame in frames if frame[1] is not None)
