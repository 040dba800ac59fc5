"""Check items (attention and gold items): an item whose expected answer is known, in terms of the
kind's label fields, so any kind's answer to it can be judged the same way: a field's label is
compared with an expected value (the kind's own notion of sameness), with one of a list of
accepted values, or with a range ({"min": a, "max": b}, either end optional)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import TaskKind


def check_problems(kind: TaskKind, expected: Any) -> list[str]:
    """What is wrong with an item's expected answer (empty: nothing)."""
    if not isinstance(expected, Mapping) or not expected:
        return ["an expected answer is a mapping {label field: expected value}"]
    fields = {f.name: f for f in kind.label_fields()}
    problems = []
    for name, value in expected.items():
        if name not in fields:
            problems.append(f"{name!r} is not a label field of the kind ({', '.join(fields) or 'none'})")
        elif isinstance(value, Mapping):
            ends = {k: v for k, v in value.items() if k in ("min", "max")}
            if not ends or set(value) - {"min", "max"}:
                problems.append(f"{name}: a range is {{'min': a, 'max': b}} (either end may be left out)")
            elif not all(isinstance(v, int | float) and not isinstance(v, bool) for v in ends.values()):
                problems.append(f"{name}: a range's ends are numbers")
        elif isinstance(value, list) and not value:
            problems.append(f"{name}: a list of accepted values may not be empty")
    return problems


def check_passed(kind: TaskKind, payload: Mapping[str, Any], answers: Mapping[str, Any], expected: Any) -> bool:
    """Whether the answers to a check item give every expected label (an unanswered field fails)."""
    row = kind.annotation_row(payload, answers)
    for field in kind.label_fields():
        if field.name not in expected:
            continue
        want, got = expected[field.name], field.value(row)
        if got is None or not _matches(kind, field.name, got, want):
            return False
    return True


def _matches(kind: TaskKind, field: str, got: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        try:
            number = float(got)
        except (TypeError, ValueError):
            return False
        low, high = want.get("min"), want.get("max")
        return (low is None or number >= low) and (high is None or number <= high)
    if isinstance(want, list) and not isinstance(got, list):
        return any(_same(kind, field, got, one) for one in want)
    return _same(kind, field, got, want)


def _same(kind: TaskKind, field: str, got: Any, want: Any) -> bool:
    """The kind's sameness, or the same text (a file says 2 where an answer stored "2")."""
    return kind.same(field, got, want) or (not isinstance(got, list) and str(got) == str(want))
