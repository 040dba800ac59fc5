"""YAML text (or JSON, which YAML reads) into ruamel's round-trip tree under the rules (see the
package's docstring); the parser's events are checked before any tree is built."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, MappingStartEvent, ScalarEvent

from .rules import INT_BOUND, MAX_DEPTH, MAX_INT_DIGITS, Refused, check_size, key_path, text_problem

#: plain YAML scalars read as numbers (YAML 1.2 core schema, and ruamel's underscores)
_YAML_INT = re.compile(r"[-+]?(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)")
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?")
_YAML_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_YAML_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
#: more opening brackets in a row than MAX_DEPTH allows: refused before the YAML parser, whose
#: look-ahead for a key spends most of a second on such a run
_OPENING_RUN = re.compile(rf"[\[{{](?:[ \t\r\n]*[\[{{]){{{MAX_DEPTH}}}")


def load_yaml(text: str, *, limit: int) -> Any:
    """`text` (YAML, or JSON, which YAML reads) as ruamel's round-trip tree, which keeps each
    key's line; Refused for an alias, nesting, a number or a text that breaks a rule, or what is
    not YAML. The events are checked before the tree is built, so nothing is ever expanded."""
    check_size(text, limit)
    run = _OPENING_RUN.search(text)
    if run:
        raise Refused(
            f"nested more than {MAX_DEPTH} levels deep ({MAX_DEPTH + 1} brackets open in a row)",
            line=text.count("\n", 0, run.start()) + 1,
        )
    yaml = YAML(typ="rt", pure=True)
    try:
        _check_events(yaml.parse(text))
        return yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = mark.line + 1 if mark is not None else None
        raise Refused(f"not valid YAML or JSON: {exc.problem or exc.context}", line=where) from None
    except YAMLError as exc:
        raise Refused(f"not valid YAML or JSON: {exc}") from None


def _check_events(events: Iterable[Any]) -> None:
    frames: list[list[Any]] = []  # [is_mapping, key or index, expecting a key]
    for event in events:
        line = event.start_mark.line + 1
        if isinstance(event, AliasEvent):
            raise Refused(
                f"an alias (*{event.anchor}) repeats an anchored part; aliases are not allowed, write the part out",
                line=line,
                path=key_path(_yaml_path(frames)),
            )
        if isinstance(event, CollectionStartEvent):
            if len(frames) >= MAX_DEPTH:
                raise Refused(
                    f"nested more than {MAX_DEPTH} levels deep", line=line, path=key_path(_yaml_path(frames)[:1])
                )
            if frames and frames[-1][0] and frames[-1][2]:
                frames[-1][1] = "?"
            frames.append(
                [isinstance(event, MappingStartEvent), None, True]
                if isinstance(event, MappingStartEvent)
                else [False, 0, False]
            )
        elif isinstance(event, CollectionEndEvent):
            frames.pop()
            _advance(frames)
        elif isinstance(event, ScalarEvent):
            is_key = bool(frames and frames[-1][0] and frames[-1][2])
            problem = text_problem(event.value) or (_yaml_number_problem(event.value) if event.style is None else None)
            if problem:
                path = (_yaml_path(frames[:-1]) + (event.value,)) if is_key else _yaml_path(frames)
                raise Refused(("the key: " if is_key else "") + problem, line=line, path=key_path(path))
            if is_key:
                frames[-1][1] = event.value
            _advance(frames)


def _advance(frames: list[list[Any]]) -> None:
    """A node ended: a mapping now expects its next key (or a value), a sequence its next item."""
    if frames:
        if frames[-1][0]:
            frames[-1][2] = not frames[-1][2]
        else:
            frames[-1][1] += 1


def _yaml_path(frames: list[list[Any]]) -> tuple[Any, ...]:
    return tuple(frame[1] for frame in frames if frame[1] is not None)


def _yaml_number_problem(value: str) -> str | None:
    """A plain scalar YAML reads as a number that breaks a rule: NaN, an infinity (.inf, or a
    float too large, like 1e309), an integer of too many digits."""
    if _YAML_NAN.fullmatch(value):
        return f"{value} (NaN) is not a finite number"
    if _YAML_INF.fullmatch(value):
        return f"{value} (Infinity) is not a finite number"
    if _YAML_INT.fullmatch(value):
        plain = value.replace("_", "").lstrip("+-")
        if plain[1:2] in ("x", "o", "b"):  # a power-of-two base converts at any length: compare the value
            too_big = int(plain, 0) >= INT_BOUND
        else:  # decimal digits are counted: Python converts at most 4,300 of them
            too_big = len(plain.lstrip("0")) > MAX_INT_DIGITS
        return f"an integer of more than {MAX_INT_DIGITS} digits" if too_big else None
    if (
        _YAML_FLOAT.fullmatch(value)
        and any(c.isdigit() for c in value)
        and not math.isfinite(float(value.replace("_", "")))
    ):
        return f"{value[:20]} is too large: not a finite number"
    return None
