"""Reading Label Studio's JSON-MIN and CSV exports as tasks: one record per annotation (tasks
nobody annotated are not in them), the task's data keys beside `id` (the task's), `annotator`
(the user's number), `annotation_id`, `created_at`, `updated_at`, `lead_time` and one key per
label field (`from_name`) holding its value flattened: a single choice as its text, several as
`{"choices": [...]}`, spans as `[{"start", "end", "text", "labels"}]`, a rating or number as
the number, a text as the text. In the CSV every cell is text, the structures JSON. The
records of one task `id` become one `Task` with their annotations, typed as the JSON export's
are (`label_studio_results`), so the same checks follow."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .base import ImportProblem
from .label_studio import Task, moment
from .label_studio_results import span_of
from .typed import ImportedAnnotation, TypedAnswer

#: the keys of a record that are not the task's data nor a label field
META = frozenset({"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time"})


def is_label_studio_min(keys: Iterable[str], item_keys: set[str]) -> bool:
    """Whether records with these keys (a JSON array's first object, a table's header) are
    Label Studio's JSON-MIN or CSV export: an `annotator` and an `annotation_id` the task file
    does not take for item keys."""
    found = set(keys)
    return {"annotator", "annotation_id", "id"} <= found and not found & {"annotator", "annotation_id"} & item_keys


def min_tasks(records: Iterable[tuple[int, dict[str, Any]]], forms: Mapping[str, tuple[str, str]]) -> Iterator[Task]:
    """The tasks of the records, in the order each first appears; `forms`: each label field's
    answer form and the item key it is about."""
    tasks: dict[str, tuple[int, dict[str, Any], list[ImportedAnnotation]]] = {}
    for line, record in records:
        task_id = _text(record.get("id"))
        if not task_id:
            raise ImportProblem("the record has no task 'id' (Label Studio JSON-MIN)", line=line, field="id")
        data = {k: v for k, v in record.items() if k not in META and k not in forms}
        entry = tasks.setdefault(task_id, (line, data, []))
        entry[2].append(_annotation(record, task_id, line, forms, entry[2]))
    for task_id, (line, data, made) in tasks.items():
        yield Task(line, data, task_id, tuple(made))


def _annotation(
    record: Mapping[str, Any],
    task_id: str,
    line: int,
    forms: Mapping[str, tuple[str, str]],
    earlier: list[ImportedAnnotation],
) -> ImportedAnnotation:
    annotator = _text(record.get("annotator"))
    name = f"task {task_id} (Label Studio JSON-MIN), annotation {_text(record.get('annotation_id')) or '?'}"
    if not annotator:
        raise ImportProblem(f"{name}: 'annotator' must name its annotator", line=line, field="annotator")
    name = f"{name} (annotator {annotator})"
    if any(a.annotator == annotator for a in earlier):
        raise ImportProblem(
            f"{name}: the same annotator annotated this task before; one annotation per annotator and task "
            "can be imported",
            line=line,
            field="annotator",
        )
    typed = []
    for field, (form, target) in forms.items():
        value = record.get(field) if form == "text" else _decoded(record.get(field))
        if value is None or value == "" or value == []:
            continue
        try:
            typed.append(_typed(field, form, target, value))
        except (ValueError, TypeError) as problem:
            raise ImportProblem(f"{name}: {problem}", line=line, field=field) from None
    lead = _decoded(record.get("lead_time"))
    if lead is not None and lead != "" and (isinstance(lead, bool) or not isinstance(lead, int | float) or lead < 0):
        raise ImportProblem(f"{name}: 'lead_time' must be seconds (a number from 0)", line=line, field="lead_time")
    return ImportedAnnotation(
        annotator=annotator,
        typed=tuple(typed),
        where=name,
        line=line,
        seconds=None if lead in (None, "") else float(lead),
        completed_at=moment(record.get("created_at") or record.get("updated_at"), name, line),
        updated_at=moment(record.get("updated_at"), name, line, "updated_at"),
    )


def _typed(field: str, form: str, target: str, value: Any) -> TypedAnswer:
    """A flattened value as the typed answer of its field's form; ValueError: it is not one."""
    if form == "choices":
        found = value.get("choices") if isinstance(value, Mapping) else value
        found = [found] if isinstance(found, str | int | float) and not isinstance(found, bool) else found
        if not isinstance(found, list) or not all(isinstance(v, str | int | float) for v in found):
            raise ValueError("a choice must be a text, or {'choices': [...]}")
        return TypedAnswer(field, form, [str(v) for v in found], target)
    if form == "spans":
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise ValueError("spans must be a list of {start, end, text, labels}")
        return TypedAnswer(field, form, [span_of(v) for v in value], target)
    if form in ("rating", "number"):
        number = json.loads(value) if isinstance(value, str) else value
        if isinstance(number, bool) or not isinstance(number, int | float) or (form == "rating" and number % 1):
            raise ValueError(f"a {form} must be a {'whole ' if form == 'rating' else ''}number")
        return TypedAnswer(field, form, int(number) if form == "rating" else number, target)
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("a text must be a text or a list of texts")
    return TypedAnswer(field, form, "\n".join(texts), target)


def _decoded(value: Any) -> Any:
    """A CSV cell's JSON structure or number, read; other values as they are."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text[:1] in ("[", "{") or (text and text.replace(".", "", 1).isdigit()):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return value
    return value


def _text(value: Any) -> str:
    return "" if value is None or isinstance(value, bool) else str(value).strip()
