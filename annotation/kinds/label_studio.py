"""Reading Label Studio's task JSON (its import format and its export: a list of tasks, each
`{"id": ..., "data": {...}, "annotations": [...], "predictions": [...]}`) as item records: each
task's `data` is one item. Annotations and predictions are not read (the items' answers come
from this platform's annotators). A file is taken for Label Studio's when its first object has a
`data` object among keys Label Studio gives a task, and `data` is not an item key of the task."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .base import ImportProblem
from .formats import value_problem

#: the keys of a task in Label Studio's import and export JSON (its documented task format)
TASK_KEYS = frozenset(
    {
        "id",
        "data",
        "annotations",
        "predictions",
        "meta",
        "created_at",
        "updated_at",
        "inner_id",
        "total_annotations",
        "cancelled_annotations",
        "total_predictions",
        "comment_count",
        "unresolved_comment_count",
        "last_comment_updated_at",
        "project",
        "updated_by",
        "file_upload",
        "comment_authors",
        "annotators",
        "is_labeled",
        "overlap",
        "drafts",
    }
)


def is_label_studio(first: Any, item_keys: set[str]) -> bool:
    """Whether a JSON array whose first element is `first` holds Label Studio tasks."""
    return (
        isinstance(first, Mapping)
        and isinstance(first.get("data"), Mapping)
        and "data" not in item_keys
        and set(first) <= TASK_KEYS
    )


def task_records(tasks: list[Any], lines: list[int]) -> Iterator[tuple[int, dict[str, Any], str | None]]:
    """(line, the task's `data`, the task's id as text or None) per task; a task that is not one
    raises ImportProblem naming its number (from 1), its line and the key at fault."""
    for index, task in enumerate(tasks):
        line = lines[index] if index < len(lines) else index + 1
        where = f"task {index + 1} (Label Studio)"
        if not isinstance(task, Mapping):
            raise ImportProblem(f"{where} is a {type(task).__name__}, not a JSON object", line=line)
        data = task.get("data")
        if not isinstance(data, Mapping):
            raise ImportProblem(f"{where} has no 'data' object", line=line, field="data")
        if not data:
            raise ImportProblem(f"{where}: 'data' is empty", line=line, field="data")
        problem = value_problem(dict(data))
        if problem is not None:  # a NUL or a lone surrogate: no database stores it alike
            raise ImportProblem(f"{where}: {problem[0]}", line=line, field=f"data.{problem[1]}")
        task_id = task.get("id")
        if task_id is not None and (isinstance(task_id, bool) or not isinstance(task_id, int | str)):
            raise ImportProblem(f"{where}: 'id' must be a number or a text", line=line, field="id")
        yield line, dict(data), None if task_id is None else str(task_id)
