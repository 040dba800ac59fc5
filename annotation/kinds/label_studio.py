"""Reading Label Studio's task JSON (its import format and its export: a list of tasks, each
`{"id": ..., "data": {...}, "annotations": [...], "predictions": [...]}`) as item records: each
task's `data` is one item, and each annotation not cancelled its label answers typed
(`ImportedAnnotation`, result types mapped back by RESULT_TYPES), which the kind then checks
against its questions. A task's predictions ride along unread (the item import leaves them);
a predictions import types them by `task_predictions`, as annotations are. A file is taken for Label Studio's when its
first object has a `data` object, and `data` is not an item key of the task; a task's keys
other than READ_KEYS are collected (`Task.ignored`) for the import's reply."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from .base import ImportProblem
from .label_studio_results import typed_results
from .typed import MAX_SECONDS, ImportedAnnotation, ImportedPrediction, usable_seconds

#: the keys of a task that are read (the others, `allow_skip`, `inner_id`, `total_annotations`,
#: `drafts`... carry nothing the platform keeps: they are named in the import's reply)
READ_KEYS = frozenset({"id", "data", "annotations", "predictions"})


def is_label_studio(first: Any, item_keys: set[str]) -> bool:
    """Whether a JSON array whose first element is `first` holds Label Studio tasks: a `data`
    object, unless the task file's own records have a key `data`."""
    return isinstance(first, Mapping) and isinstance(first.get("data"), Mapping) and "data" not in item_keys


@dataclass(frozen=True)
class Task:
    """One Label Studio task as an item record: its line, its `data`, its id as text (None: none),
    its annotations not cancelled, how many were cancelled, and its `predictions` as the file
    has them (read by `task_predictions` for a predictions import only)."""

    line: int
    data: dict[str, Any]
    task_id: str | None
    annotations: tuple[ImportedAnnotation, ...] = ()
    cancelled: int = 0
    predictions: Any = None
    ignored: frozenset[str] = frozenset()


def task_records(tasks: list[tuple[int, Any]]) -> Iterator[Task]:
    """Each task (with the line it starts on); a task that is not one raises ImportProblem naming
    its number (from 1), its line and the key at fault (an annotation's: its id and the result's
    field). NUL, surrogates, nesting and numbers were checked as the file was read."""
    for index, (line, task) in enumerate(tasks):
        where = f"task {index + 1} (Label Studio)"
        if not isinstance(task, Mapping):
            raise ImportProblem(f"{where} is a {type(task).__name__}, not a JSON object", line=line)
        data = task.get("data")
        if not isinstance(data, Mapping):
            raise ImportProblem(f"{where} has no 'data' object", line=line, field="data")
        if not data:
            raise ImportProblem(f"{where}: 'data' is empty", line=line, field="data")
        task_id = task.get("id")
        if task_id is not None and (isinstance(task_id, bool) or not isinstance(task_id, int | str)):
            raise ImportProblem(f"{where}: 'id' must be a number or a text", line=line, field="id")
        annotations, cancelled = task_annotations(task.get("annotations"), where, line)
        ignored = frozenset(task) - READ_KEYS
        yield Task(
            line,
            dict(data),
            None if task_id is None else str(task_id),
            annotations,
            cancelled,
            task.get("predictions"),
            ignored,
        )


def task_annotations(raw: Any, where: str, line: int) -> tuple[tuple[ImportedAnnotation, ...], int]:
    """A task's annotations not cancelled (`was_cancelled`), typed, and how many were cancelled;
    one annotation per annotator (`completed_by`) and task."""
    if raw is None:
        return (), 0
    if not isinstance(raw, list):
        raise ImportProblem(f"{where}: 'annotations' must be a list", line=line, field="annotations")
    found: list[ImportedAnnotation] = []
    cancelled = 0
    by_annotator: dict[str, str] = {}
    for number, annotation in enumerate(raw, start=1):
        if not isinstance(annotation, Mapping):
            raise ImportProblem(f"{where}: annotation {number} is not a JSON object", line=line, field="annotations")
        name = f"{where}, annotation {_ref(annotation.get('id'), number)}"
        if annotation.get("was_cancelled") is True:
            cancelled += 1
            continue
        annotator = _annotator(annotation.get("completed_by"), name, line)
        name = f"{name} (completed_by {annotator})"
        if annotator in by_annotator:
            raise ImportProblem(
                f"{name}: annotation {by_annotator[annotator]} of the same annotator is on this task too; "
                "one annotation per annotator and task can be imported",
                line=line,
                field="completed_by",
            )
        by_annotator[annotator] = _ref(annotation.get("id"), number)
        found.append(
            ImportedAnnotation(
                annotator=annotator,
                typed=typed_results(annotation.get("result"), name, line),
                where=name,
                line=line,
                seconds=_seconds(annotation.get("lead_time"), name, line),
                completed_at=moment(annotation.get("created_at") or annotation.get("updated_at"), name, line),
                updated_at=moment(annotation.get("updated_at"), name, line, "updated_at"),
            )
        )
    return tuple(found), cancelled


def task_predictions(raw: Any, where: str, line: int) -> tuple[ImportedPrediction, ...]:
    """A task's predictions, each its model (`model_version`; None: not named, or named "" as
    Label Studio saves a prediction made without a model), its results typed by `typed_results`,
    as an annotation's are, its `score` and `created_at`; one with no result is left out."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ImportProblem(f"{where}: 'predictions' must be a list", line=line, field="predictions")
    found = []
    for number, prediction in enumerate(raw, start=1):
        if isinstance(prediction, int) and not isinstance(prediction, bool):
            raise ImportProblem(
                f"{where}: prediction {number} is only an id ({prediction}), as Label Studio's JSON export lists "
                "them: import a snapshot export (Export, then Create New Snapshot), which holds them in full",
                line=line,
                field="predictions",
            )
        if not isinstance(prediction, Mapping):
            raise ImportProblem(f"{where}: prediction {number} is not a JSON object", line=line, field="predictions")
        name = f"{where}, prediction {_ref(prediction.get('id'), number)}"
        version = prediction.get("model_version")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int | str)):
            raise ImportProblem(f"{name}: 'model_version' must be a text", line=line, field="model_version")
        model = str(version).strip() if version is not None else ""
        typed = typed_results(prediction.get("result"), name, line)
        score = prediction.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
            raise ImportProblem(f"{name}: 'score' must be a number", line=line, field="score")
        made = moment(prediction.get("created_at"), name, line)
        if typed:
            found.append(ImportedPrediction(model or None, typed, name, line, score=score, created_at=made))
    return tuple(found)


def _ref(value: Any, number: int) -> str:
    return str(value) if isinstance(value, int | str) and not isinstance(value, bool) else f"#{number}"


def _annotator(value: Any, name: str, line: int) -> str:
    """Who made an annotation: `completed_by`, a user's number, or an object with their `email`
    (which wins: the same person in every project) or `id`."""
    if isinstance(value, Mapping):
        value = value.get("email") or value.get("id")
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    if not text or (isinstance(value, int) and value < 0) or any(c < " " or c == "\x7f" for c in text):
        raise ImportProblem(
            f"{name}: 'completed_by' must name its annotator (a number from 0, an e-mail, or an object with their "
            "email or id; no control characters)",
            line=line,
            field="completed_by",
        )
    return text


def _seconds(value: Any, name: str, line: int) -> float | None:
    if value is None:
        return None
    seconds = usable_seconds(value)
    if seconds is None:
        raise ImportProblem(
            f"{name}: 'lead_time' must be seconds, a number from 0 to {MAX_SECONDS:,} (a week)",
            line=line,
            field="lead_time",
        )
    return float(seconds)


def moment(value: Any, name: str, line: int, key: str = "created_at") -> datetime | None:
    """A moment the file gives (`key`, aware; naive times are UTC); None: not said."""
    if value in (None, ""):
        return None
    try:
        moment = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well formed, but no such day or hour
        moment = None
    if moment is None:
        raise ImportProblem(f"{name}: {key!r} is not a date and time", line=line, field=key)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
