"""Reading a task file: YAML or JSON text into plain data checked against the JSON Schema, or every
problem with its key path and (from the YAML parser's positions) its line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from annotation.structured_input import Refused, load_yaml

#: a task file is a page of words and rules; a megabyte is a mistake (a dataset pasted in)
MAX_TASK_FILE_BYTES = 200_000
SCHEMA_PATH = Path(__file__).with_name("schema.json")

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class TaskFileProblem:
    """One mistake in a task file: where (key path, line) and what."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = ", ".join(part for part in (f"line {self.line}" if self.line else "", self.path) if part)
        return f"{where}: {self.message}" if where else self.message


class TaskFileError(ValueError):
    """A task file that cannot be used; `problems` lists every mistake found, one a line."""

    def __init__(self, problems: Sequence[TaskFileProblem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def key_path(path: Iterable[str | int]) -> str:
    """`pages[0].questions[1].type`: how the documentation and the errors name a key."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class Located:
    """The parsed file as plain data, with the line of each key path (YAML and JSON alike: the
    YAML parser reads JSON too and keeps the positions)."""

    def __init__(self, tree: Any):
        self.tree = tree
        self.data = _plain(tree)

    def line(self, path: Path_) -> int | None:
        node, line = self.tree, 1
        for part in path:
            position = _position(node, part)
            if position is None:
                break
            line = position + 1
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                break
        return line

    def problem(self, path: Path_, message: str) -> TaskFileProblem:
        return TaskFileProblem(key_path(path), self.line(path), message)


def _position(node: Any, part: str | int) -> int | None:
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        return lc.key(part)[0] if isinstance(part, str) else lc.item(part)[0]
    except (KeyError, IndexError, TypeError):
        return None


def _plain(node: Any) -> Any:
    """ruamel's commented maps, sequences and scalar subclasses as plain dicts, lists and scalars."""
    if isinstance(node, Mapping):
        return {str(key): _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(value) for value in node]
    if isinstance(node, bool) or node is None:
        return node
    for kind in (int, float, str):
        if isinstance(node, kind):
            return kind(node)
    return str(node)  # dates and other YAML tags: their text


def read(text: str, validator: jsonschema.protocols.Validator | None = None) -> Located:
    """The file's data checked against the task file's schema (or `validator`'s: a study file
    reuses the question types); raises TaskFileError naming every problem."""
    located, problems = read_unchecked(text, validator)
    if problems:
        raise TaskFileError(problems)
    return located


def read_unchecked(
    text: str, validator: jsonschema.protocols.Validator | None = None
) -> tuple[Located, list[TaskFileProblem]]:
    """The file's data and its schema problems (sorted by line), so a caller may look for more
    mistakes in the same file before it refuses it; raises TaskFileError for a file that reads as
    no mapping at all."""
    if not text.strip():
        raise TaskFileError([TaskFileProblem("", None, "the task file is empty")])
    try:
        tree = load_yaml(text, limit=MAX_TASK_FILE_BYTES)
    except Refused as exc:
        raise TaskFileError([TaskFileProblem(exc.path or "", exc.line, exc.message)]) from None
    if not isinstance(tree, Mapping):
        raise TaskFileError([TaskFileProblem("", 1, "a task file is a mapping of keys (title, item, pages, ...)")])
    located = Located(tree)
    problems = [_problem(located, error) for error in (validator or _validator()).iter_errors(located.data)]
    return located, sorted_unique(problems)


@cache
def task_file_schema() -> dict[str, Any]:
    """The task file's JSON Schema (its `$defs` hold the question types a study file reuses)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(task_file_schema())


def _problem(located: Located, error: ValidationError) -> TaskFileProblem:
    """The most specific of an error's causes (a `oneOf` or `if`/`then` says which branch failed)."""
    if error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            error = best
    path: Path_ = tuple(error.absolute_path)
    message = error.message
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = set(error.schema.get("properties") or {})
        extra = sorted(set(error.instance) - allowed)
        if extra:
            path = (*path, extra[0])
            message = f"unknown key {extra[0]!r}; known keys here: {', '.join(sorted(allowed))}"
    return located.problem(path, message)


def sorted_unique(problems: list[TaskFileProblem]) -> list[TaskFileProblem]:
    """`problems` by line, each (path, message) once."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for problem in sorted(problems, key=lambda p: (p.line or 0, p.path)):
        if (problem.path, problem.message) not in seen:
            seen.add((problem.path, problem.message))
            kept.append(problem)
    return kept
