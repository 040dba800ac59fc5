"""TEMPORARY stand-in for the lead's task-file core (reverted before merging main)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from .base import TaskKind
from .registry import all_kinds, get_kind

TASK_FILE_KIND = "task_file"


@dataclass(frozen=True)
class TaskFileProblem:
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return (f"line {self.line}, " if self.line else "") + f"{self.path}: {self.message}"


class TaskFileError(ValueError):
    def __init__(self, problems: list[TaskFileProblem]):
        self.problems = problems
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join((f"line {p.line}, " if p.line else "") + f"{p.path}: {p.message}" for p in self.problems)


def _load(text: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TaskFileError([TaskFileProblem("", None, f"not YAML or JSON: {exc}")]) from None
    if not isinstance(data, dict):
        raise TaskFileError([TaskFileProblem("", 1, "the file must be a mapping of keys")])
    problems = [TaskFileProblem(k, 1, f"'{k}' is a required property") for k in ("title", "pages") if k not in data]
    if problems:
        raise TaskFileError(problems)
    return data


def task_file_kind(text: str) -> TaskKind:
    _load(text)
    return all_kinds()[0]


def kind_of(project: Any) -> TaskKind:
    if project.kind == TASK_FILE_KIND:
        return task_file_kind(project.task_file)
    return get_kind(project.kind)


def task_file_words_change(old: str, new: str) -> str | None:
    a, b = _load(old), _load(new)
    return None if a.get("pages") == b.get("pages") else "pages differ"
