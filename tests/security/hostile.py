"""Hostile documents of issue 37, shared by its tests."""

from __future__ import annotations


def alias_bomb(levels: int = 9) -> str:
    """Nine anchors of nine aliases each (`l8` expands to 9**8 strings): a few hundred bytes."""
    lines = ["description: &a0 lol"]
    for level in range(1, levels):
        lines.append(f"l{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def deep_yaml(depth: int = 20_000) -> str:
    return "title: deep\nitem: " + "[" * depth + "]" * depth + "\n"


def deep_json(depth: int = 20_000) -> str:
    return '{"title": "deep", "item": ' + "[" * depth + "]" * depth + "}"


def huge_integer(digits: int = 5_000) -> str:
    return "title: big\nitem:\n  n: " + "9" * digits + "\n"


#: (document, what the refusal says)
HOSTILE_TASK_FILES = {
    "alias bomb": (alias_bomb(), "line 2, l1[0]: an alias (*a0)"),
    "deep YAML": (deep_yaml(), "line 2: nested more than 64 levels deep"),
    "deep JSON": (deep_json(), "line 1: nested more than 64 levels deep"),
    "deep JSON spaced": ('{"item": ' + "[1, " * 20_000 + "]" * 20_000 + "}", "line 1, item: nested more than 64"),
    "huge integer": (huge_integer(), "line 3, item.n: an integer of more than 50 digits"),
    "NaN": ("title: x\nitem:\n  n: .nan\n", "line 3, item.n: .nan (NaN) is not a finite number"),
    "1e309": ('{"title": "x",\n "item": {"n": 1e309}}', "line 2, item.n: 1e309 is too large: not a finite number"),
    "surrogate": ('title: "\\ud800"\n', "line 1, title: a lone surrogate (\\ud800) is not Unicode text"),
    "NUL": ('title: "a\\0b"\n', "line 1, title: a NUL character"),
}
