"""Importing a task file's items: JSON Lines, a JSON array, CSV or TSV, told apart by content,
checked by the file's item keys. Errors name the record's line and the key."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from ..base import ImportProblem, ParsedItem
from ..formats import content_id, jsonl_records, value_problem
from .spec import TaskSpec


def parse_items(task: TaskSpec, text: str) -> Iterator[ParsedItem]:
    text = text.lstrip("\ufeff")
    start = text.lstrip()[:1]
    if start == "[":
        records: Iterator[tuple[int, dict[str, Any]]] = _json_array(text)
    elif start == "{":
        records = jsonl_records(text)
    else:
        records = _table(text, list_keys=_list_keys(task))
    seen: set[str] = set()
    for line, record in records:
        external_id = _external_id(task, record, line)
        if external_id in seen:
            raise ImportProblem(
                f"the id {external_id!r} is used twice in this file", line=line, field=task.id_key or None
            )
        seen.add(external_id)
        _check(task, record, line)
        yield ParsedItem(external_id=external_id, payload=record, line=line)


def _json_array(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of a JSON array, each with the line its object starts on."""
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"invalid JSON ({exc.msg} at column {exc.colno})", line=exc.lineno) from None
    if not isinstance(records, list):  # pragma: no cover - the text starts with "["
        raise ImportProblem("expected a JSON array of objects")
    starts = _object_lines(text)
    for index, record in enumerate(records):
        line = starts[index] if index < len(starts) else None
        if not isinstance(record, dict):
            raise ImportProblem(f"record {index + 1} is a {type(record).__name__}, not a JSON object", line=line)
        problem = value_problem(record)
        if problem is not None:
            raise ImportProblem(problem[0], line=line, field=problem[1])
        yield line or index + 1, record


def _object_lines(text: str) -> list[int]:
    """The line of each top-level object of a JSON array (depth 1), by a scan that skips strings."""
    lines, depth, line, in_string, escaped = [], 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth == 2 and char == "{":
                lines.append(line)
        elif char in "]}":
            depth -= 1
    return lines


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
                    row[key] = json.loads(value)
                except json.JSONDecodeError as exc:
                    raise ImportProblem(f"not a JSON list ({exc.msg})", line=line, field=key) from None
            else:
                row[key] = value
        problem = value_problem(row)
        if problem is not None:  # a NUL or a lone surrogate: no database stores it alike
            raise ImportProblem(problem[0], line=line, field=problem[1])
        yield line, row


def _external_id(task: TaskSpec, record: dict[str, Any], line: int) -> str:
    if not task.id_key:
        return content_id(record)
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
        if isinstance(source, str) and source in record:
            options = record[source]
            if not isinstance(options, list) or len(options) < 2:
                raise ImportProblem(
                    f"must be a list of at least two options (question {question.id!r})", line=line, field=source
                )
        for key in (question.get("source"),) if question.type in ("spans", "sentences") else ():
            value = record.get(key)
            if value is not None and not isinstance(value, (str, list)):
                raise ImportProblem(f"must be a text (question {question.id!r})", line=line, field=key)
            if question.type == "spans" and isinstance(value, list):
                raise ImportProblem(
                    f"must be one text to mark spans in (question {question.id!r})", line=line, field=key
                )
