"""The rules every structured document a user sends is held to (see the package's docstring),
and the checks of an already parsed value. Pure: no Django."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

#: deeper than any released dataset or task file nests; far from any parser's recursion limit
MAX_DEPTH = 64
#: more digits than any id or count (a 128-bit id has 39); Python converts at most 4,300
MAX_INT_DIGITS = 50
INT_BOUND = 10**MAX_INT_DIGITS
_SCALARS = frozenset({str, int, bool, type(None)})
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused(ValueError):
    """A document, or a value in it, that is not read: what is wrong, and where."""

    def __init__(self, message: str, *, line: int | None = None, path: str | None = None):
        self.message, self.line, self.path = message, line, path
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [part for part in (f"line {self.line}" if self.line else "", self.path or "") if part]
        return f"{', '.join(where)}: {self.message}" if where else self.message


def key_path(parts: Iterable[Any]) -> str | None:
    """`("meta", "tags", 3)` as `meta.tags[3]` (None: the document itself)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or None


def check_size(data: str | bytes, limit: int, what: str = "the document") -> None:
    """Refuses `data` longer than `limit` bytes (UTF-8), before any parsing."""
    size = (
        len(data)
        if isinstance(data, bytes)
        else (len(data) if data.isascii() else len(data.encode("utf-8", "surrogatepass")))
    )
    if size > limit:
        raise Refused(f"{what} is {size:,} bytes, more than the {limit:,} allowed")


def text_problem(text: str) -> str | None:
    """NUL or a lone surrogate in `text`, described; None when there is neither."""
    if "\x00" in text:
        return "a NUL character (\\u0000) is not allowed in text"
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found:
            return f"a lone surrogate (\\u{ord(found.group()):04x}) is not Unicode text"
    return None


def number_problem(value: Any) -> str | None:
    """NaN, an infinity or an integer of more than MAX_INT_DIGITS digits, described."""
    kind = type(value)
    if kind is float and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"{name} is not a finite number"
    if kind is int and not -INT_BOUND < value < INT_BOUND:
        return f"an integer of more than {MAX_INT_DIGITS} digits"
    return None


def value_problem(value: Any, *, text: bool = True) -> tuple[str, str | None] | None:
    """(what is wrong, key path) for the first part of already parsed `value` that breaks a rule
    above; None when all is well. Iterative, so no nesting can exhaust the stack. A nesting
    problem names the top-level key it is under (the full path would be 64 keys long)."""
    if type(value) is not dict and type(value) is not list:
        return _scalar_problem(value, (), text)
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) >= MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep", top_key(path)
        if type(node) is dict:
            if text and text_problem("".join(node)):
                key, problem = next((key, problem) for key in node if (problem := text_problem(key)))
                return "the key: " + problem, key_path((*path, key))
            pairs: Any = node.items()
        else:
            pairs = enumerate(node)
        for key, item in pairs:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, (*path, key)))
            elif kind is not bool and kind is not type(None) and _scalar_problem(item, (), text):
                return _scalar_problem(item, (*path, key), text)
    return None


def top_key(path: tuple[Any, ...]) -> str | None:
    """Where a too deep part is: its path up to the first key by name (`meta`, `[3].meta`; its
    full path would be 64 steps long); None when no key by name leads to it."""
    for index, part in enumerate(path):
        if isinstance(part, str):
            return key_path(path[: index + 1])
    return None


def _scalar_problem(value: Any, path: tuple[Any, ...], text: bool = True) -> tuple[str, str | None] | None:
    if type(value) is str:
        problem = text_problem(value) if text else None
    else:
        problem = number_problem(value)
    return (problem, key_path(path)) if problem else None


def float_free(value: Any) -> bool:
    """True when `value` holds only dicts, lists, strings, ints, bools and None (exact types):
    there orjson reads and writes as the json module does; floats are where they part (orjson
    reads an integer beyond 64 bits as a float, writes 1e-07 as 1e-7 and NaN as null)."""
    kind = type(value)
    if kind is dict:
        values: Any = value.values()
    elif kind is list:
        values = value
    else:
        return kind in _SCALARS
    return all(type(item) in _SCALARS or float_free(item) for item in values)
