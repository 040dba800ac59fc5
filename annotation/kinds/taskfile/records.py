"""Importing a task file's items: JSON Lines, a JSON array, CSV or TSV, told apart by content,
checked by the file's item keys, or Label Studio's task JSON (each task's `data` an item;
`..label_studio`). Errors name the record's line and the key (and a Label Studio task's number)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from annotation.structured_input import Refused, json_array, load_json, value_problem

from ..base import ImportProblem, ParsedItem
from ..formats import content_id, jsonl_records
from ..label_studio import Task, is_label_studio, task_predictions, task_records
from ..label_studio_min import is_label_studio_min, min_tasks
from ..problems import MAX_REPORTED, collected
from ..typed import ImportedPrediction
from .spec import TaskSpec
from .typed import FORM_OF_TYPE, form_data


def parse_items(task: TaskSpec, text: str) -> Iterator[ParsedItem]:
    """The file's items; a Label Studio task's annotations ride along, typed (the kind checks
    them against its questions)."""
    tasks, label_studio = _records(task, text.lstrip("\ufeff"))
    for _number, external_id, entry in _identified(task, tasks, label_studio):
        yield ParsedItem(
            external_id=external_id,
            payload=entry.data,
            line=entry.line,
            annotations=entry.annotations,
            skipped_annotations=entry.cancelled,
            ignored_keys=entry.ignored,
        )


def label_studio_predictions(task: TaskSpec, text: str) -> list[ImportedPrediction] | None:
    """The predictions of a file of Label Studio's tasks, each with its task's item id (read as
    `parse_items` reads it) and its results as the questions' form data (`form_data`, as an
    imported annotation's); None: the text is not Label Studio's tasks (nor JSON at all)."""
    text = text.lstrip("\ufeff")
    if text.lstrip()[:1] != "[":
        return None
    try:
        tasks, label_studio = _records(task, text)
    except ImportProblem:  # not JSON: the platform's own reader of predictions names the fault
        return None
    if not label_studio:
        return None
    item_field = f"data.{task.id_key}" if task.id_key else "id"
    found = []
    for number, external_id, entry in _identified(task, tasks, label_studio):
        for prediction in task_predictions(entry.predictions, f"task {number} (Label Studio)", entry.line):
            try:
                labels = form_data(task, entry.data, prediction.typed)
            except ImportProblem as problem:
                raise ImportProblem(
                    f"{prediction.where}: {problem.message}", line=prediction.line, field=problem.field
                ) from None
            found.append(replace(prediction, item=external_id, item_field=item_field, labels=labels))
    return found


def _identified(task: TaskSpec, tasks: Iterator[Task], label_studio: bool) -> Iterator[tuple[int, str, Task]]:
    """Each record with its number (from 1) and its item id, checked; a Label Studio task's
    problem names the task. Every bad record is found (the first `MAX_REPORTED` named, the rest
    counted) before the file is refused; nothing more is yielded after the first bad one."""
    seen: set[str] = set()
    problems: list[ImportProblem] = []
    bad = 0
    for number, entry in enumerate(tasks, start=1):
        line, record = entry.line, entry.data
        try:
            external_id = _external_id(task, record, line, entry.task_id)
            if external_id in seen:
                raise ImportProblem(
                    f"the id {external_id!r} is used twice in this file", line=line, field=task.id_key or None
                )
            seen.add(external_id)
            _check(task, record, line)
        except ImportProblem as problem:
            bad += 1
            if len(problems) < MAX_REPORTED:
                problems.append(_named(problem, number, _record_id(task, record), label_studio))
            continue
        if not bad:
            yield number, external_id, entry
    if bad:
        raise collected(problems, bad)


def _record_id(task: TaskSpec, record: Any) -> str | None:
    """The record's id as the file gives it under the task's id key (None: none to name)."""
    value = record.get(task.id_key) if task.id_key and isinstance(record, dict) else None
    return None if value in (None, "") or isinstance(value, (list, dict)) else str(value)


def _named(problem: ImportProblem, number: int, record: str | None, label_studio: bool) -> ImportProblem:
    """`problem` naming the record by its id (where the file gives it) or as Label Studio's task."""
    if not label_studio:
        return ImportProblem(problem.message, line=problem.line, field=problem.field, record=record)
    return ImportProblem(
        f"task {number} (Label Studio): {problem.message}",
        line=problem.line,
        field=f"data.{problem.field}" if problem.field else None,
        record=record,
    )


def _records(task: TaskSpec, text: str) -> tuple[Iterator[Task], bool]:
    """The file's records, told apart by content, and whether they are Label Studio's tasks (its
    JSON export, or its JSON-MIN or CSV export: `..label_studio_min`)."""
    start = text.lstrip()[:1]
    if start == "[":
        records = _json_array(text)
        if records and is_label_studio(records[0][1], _item_keys(task)):
            return task_records(records), True
        if records and isinstance(records[0][1], dict) and is_label_studio_min(records[0][1], _item_keys(task)):
            return min_tasks(_array_records(records), _forms(task)), True
        return (Task(line, record, None) for line, record in _array_records(records)), False
    if start == "{":
        return (Task(line, record, None) for line, record in jsonl_records(text)), False
    header = next(csv.reader(io.StringIO(text.split("\n", 1)[0])), [])
    if is_label_studio_min(header, _item_keys(task)):
        return min_tasks(_table(text, list_keys=set()), _forms(task)), True
    return (Task(line, record, None) for line, record in _table(text, list_keys=_list_keys(task))), False


def _forms(task: TaskSpec) -> dict[str, tuple[str, str]]:
    """Each label question's answer form and the item key it is about (a span question's text)."""
    return {q.id: (FORM_OF_TYPE[q.type], str(q.get("source") or "")) for q in task.questions if q.label}


def _item_keys(task: TaskSpec) -> set[str]:
    """The item keys the task file names (shown, required, its id): `data` among them means a
    JSON array of records with a `data` key is the task's own records, not Label Studio's."""
    return {shown.key for shown in task.shown} | set(task.required) | ({task.id_key} if task.id_key else set())


def _json_array(text: str) -> list[tuple[int, Any]]:
    """The elements of a JSON array, each with the line it starts on."""
    try:
        return json_array(text)
    except Refused as exc:
        raise ImportProblem(exc.message, line=exc.line, field=exc.path) from None


def _array_records(records: list[tuple[int, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of a JSON array, each with the line its object starts on."""
    for index, (line, record) in enumerate(records):
        if not isinstance(record, dict):
            raise ImportProblem(f"record {index + 1} is a {type(record).__name__}, not a JSON object", line=line)
        yield line, record


def _list_keys(task: TaskSpec) -> set[str]:
    """Keys a table's cell holds as a JSON list: options taken from one key, sentence lists."""
    keys = {q.get("options_from") for q in task.questions if isinstance(q.get("options_from"), str)}
    return {k for k in keys if k}


def _table(text: str, *, list_keys: set[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    first = text.split("\n", 1)[0]
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if "\t" in first else ",")
    try:
        yield from _table_rows(reader, list_keys)
    except csv.Error as exc:  # a NUL, a quote left open at the end of the file
        raise ImportProblem(f"not a readable table ({exc})", line=reader.line_num or 1) from None


def _table_rows(reader: csv.DictReader, list_keys: set[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    if not reader.fieldnames or any(not (name or "").strip() for name in reader.fieldnames):
        raise ImportProblem("the first line must name every column (a header row)", line=1)
    for record in reader:
        line = reader.line_num
        if None in record:
            raise ImportProblem("more cells than the header names", line=line)
        row: dict[str, Any] = {}
        for key, value in record.items():
            if value is None:
                raise ImportProblem("fewer cells than the header names", line=line, field=key)
            if key in list_keys and value.strip().startswith("["):
                try:
                    row[key] = load_json(value)
                except Refused as exc:  # not JSON, or JSON no database stores alike (nesting, NaN...)
                    field = f"{key}{exc.path}" if exc.path and exc.path.startswith("[") else key
                    raise ImportProblem(
                        f"not a JSON list this platform reads ({exc.message})", line=line, field=field
                    ) from None
            else:
                row[key] = value
        problem = value_problem(row)
        if problem is not None:  # a NUL or a lone surrogate: no database stores it alike
            raise ImportProblem(problem[0], line=line, field=problem[1])
        yield line, row


def _external_id(task: TaskSpec, record: dict[str, Any], line: int, task_id: str | None = None) -> str:
    """The item's id: the task file's id key; without one, a Label Studio task's id, else the
    record's content hash."""
    if not task.id_key:
        return task_id if task_id is not None else content_id(record)
    value = record.get(task.id_key)
    if value is None or value == "" or isinstance(value, (bool, float, list, dict)):
        raise ImportProblem("missing, or not a string or an integer", line=line, field=task.id_key)
    return str(value)


def _check(task: TaskSpec, record: dict[str, Any], line: int) -> None:
    for key in task.required:
        value = record.get(key)
        if value is None or (isinstance(value, str) and not value.strip()) or value == []:
            raise ImportProblem("missing or empty (the task file requires it)", line=line, field=key)
    for question in task.questions:
        source = question.get("options_from")
        if isinstance(source, str):  # the question cannot be answered without its options
            options = record.get(source)
            if not isinstance(options, list) or len(options) < 2:
                raise ImportProblem(
                    f"must be a list of at least two options (question {question.id!r})", line=line, field=source
                )
        for key in source if isinstance(source, list) else ():
            if record.get(key) in (None, ""):
                raise ImportProblem(f"missing or empty (an option of question {question.id!r})", line=line, field=key)
        for key in (question.get("source"),) if question.type in ("spans", "sentences") else ():
            value = record.get(key)
            if value is None or value == "" or value == []:
                raise ImportProblem(f"missing or empty (question {question.id!r} marks it)", line=line, field=key)
            if not isinstance(value, (str, list)):
                raise ImportProblem(f"must be a text (question {question.id!r})", line=line, field=key)
            if question.type == "spans" and isinstance(value, list):
                raise ImportProblem(
                    f"must be one text to mark spans in (question {question.id!r})", line=line, field=key
                )
