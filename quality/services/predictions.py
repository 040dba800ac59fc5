"""Importing a model's predictions beside a project's items: all or nothing, every problem naming
its record (line) and field. A value is checked by the kind's own parse of a field's value
(`TaskKind.prediction_value`), so a prediction holds what an annotation of the field could.
Importing a model's name again replaces its predictions.

Two files are read: the platform's own records (`{"id": ..., field: value}`, one model, named
by the caller), and another tool's tasks a kind reads (`TaskKind.imported_predictions`: Label
Studio's export for a task file), whose predictions each name their model (`model_version`);
there a name the caller gives wins, naming every prediction of the file. Each model of the file
replaces its own predictions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.kinds import ImportProblem, TaskKind, kind_of
from annotation.kinds.formats import jsonl_records
from annotation.kinds.typed import ImportedPrediction
from annotation.models import Item, Project
from annotation.services.imports import decode_upload
from annotation.structured_input import Refused, json_array
from quality.models import Prediction

#: the record key that names the item: its id as imported (`Item.external_id`)
ID_KEY = "id"
MAX_MODEL_NAME = 100
CHUNK = 2000

Rows = list[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class PredictionsReport:
    #: the model's name; several models of one file: their names, joined by ", "
    model: str
    created: int
    replaced: int
    #: the name given to the file's predictions that name no model ("": none did)
    unnamed: str = ""


def unnamed_model(filename: str) -> str:
    """The name of a file's predictions made without a model (Label Studio saves `model_version`
    "" then): after the file, `unnamed (tasks.json)`."""
    name = Path(filename).name.strip() if filename else ""
    return f"unnamed ({name})"[:MAX_MODEL_NAME] if name else "unnamed"


def predictions_import(*, project: Project, data: bytes, model: str = "", filename: str = "") -> PredictionsReport:
    """Store the file's predictions as `model`'s (or, in another tool's tasks, each as its own
    model's unless `model` is given; one naming none as `unnamed_model(filename)`), replacing the
    ones each name had, with their score and when they were made. Raises ImportProblem (line and
    field) on any bad record, and nothing is written."""
    model = model.strip()
    if len(model) > MAX_MODEL_NAME:
        raise ImportProblem(f"the model's name must be 1 to {MAX_MODEL_NAME} characters")
    kind = kind_of(project)
    text = decode_upload(data)
    imported = kind.imported_predictions(text)
    extra: dict[tuple[str, int], tuple[float | None, Any]] = {}
    unnamed = ""
    if imported is not None:
        if not model and any(p.model is None for p in imported):
            unnamed = unnamed_model(filename)
        by_model = _imported_rows(kind, project, imported, model or "", unnamed, extra)
    elif not model:
        raise ImportProblem(f"the model's name must be 1 to {MAX_MODEL_NAME} characters")
    else:
        by_model = {model: list(_rows(kind, project, text))}
    if not any(by_model.values()):
        raise ImportProblem("the file has no predictions")
    now = timezone.now()
    replaced = 0
    with transaction.atomic():
        for name, rows in by_model.items():
            replaced += Prediction.objects.filter(project=project, model=name).delete()[0]
            Prediction.objects.bulk_create(
                Prediction(
                    project=project,
                    item_id=item_id,
                    model=name,
                    labels=labels,
                    imported_at=now,
                    score=extra.get((name, item_id), (None, None))[0],
                    created_at=extra.get((name, item_id), (None, None))[1],
                )
                for item_id, labels in rows
            )
    created = sum(len(rows) for rows in by_model.values())
    return PredictionsReport(model=", ".join(by_model), created=created, replaced=replaced, unnamed=unnamed)


def _imported_rows(
    kind: TaskKind,
    project: Project,
    imported: list[ImportedPrediction],
    model: str,
    unnamed: str,
    extra: dict[tuple[str, int], tuple[float | None, Any]],
) -> dict[str, Rows]:
    """{model: (item id, checked labels)} of another tool's predictions, in file order; each
    one's score and moment made into `extra` by (model, item id)."""
    items = dict(Item.objects.filter(project=project).values_list("external_id", "id"))
    payloads = _payloads(sorted({items[p.item] for p in imported if p.item in items}))
    by_model: dict[str, Rows] = {}
    seen: dict[tuple[str, int], str] = {}
    for prediction in imported:
        name, where, line = model or prediction.model or unnamed, prediction.where, prediction.line
        if not name:
            raise ImportProblem(f"{where} names no model: give the model's name", line=line, field="model_version")
        if len(name) > MAX_MODEL_NAME:
            raise ImportProblem(
                f"{where}: a model's name has at most {MAX_MODEL_NAME} characters", line=line, field="model_version"
            )
        item_id = items.get(prediction.item)
        if item_id is None:
            raise ImportProblem(
                f"{where}: no item of the project has the id {prediction.item!r}",
                line=line,
                field=prediction.item_field,
            )
        if (name, item_id) in seen:
            raise ImportProblem(
                f"{where}: {seen[name, item_id]} predicted the item for model {name!r} already",
                line=line,
                field="model_version",
            )
        seen[name, item_id] = where
        extra[name, item_id] = (prediction.score, prediction.created_at)
        labels = {
            field: _value(kind, payloads[item_id], field, value, line, where)
            for field, value in prediction.labels.items()
        }
        by_model.setdefault(name, []).append((item_id, labels))
    return by_model


def _value(kind: TaskKind, payload: Mapping[str, Any], field: str, value: Any, line: int, where: str = "") -> Any:
    """A field's value as the kind stores a prediction of it (`prediction_value`)."""
    try:
        return kind.prediction_value(payload, field, value)
    except ValueError as exc:
        raise ImportProblem(
            f"{where}{': ' if where else ''}{value!r} is refused: {exc}", line=line, field=field
        ) from None


def _rows(kind: TaskKind, project: Project, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(item id, checked labels) of each record, in file order."""
    fields = [f.name for f in kind.label_fields()]
    items = dict(Item.objects.filter(project=project).values_list("external_id", "id"))
    seen: dict[int, int] = {}
    found = [(line, _item(record, items, line, seen), record) for line, record in records(text)]
    payloads = _payloads([item_id for _line, item_id, _record in found])
    for line, item_id, record in found:
        labels = _labels(kind, payloads[item_id], record, fields, line)
        if labels:  # every field null: the model predicted nothing of the item
            yield item_id, labels


def _payloads(item_ids: list[int]) -> dict[int, Any]:
    payloads: dict[int, Any] = {}
    for start in range(0, len(item_ids), CHUNK):
        chunk = item_ids[start : start + CHUNK]
        payloads.update(Item.objects.filter(pk__in=chunk).values_list("id", "payload"))
    return payloads


def _item(record: Mapping[str, Any], items: Mapping[str, int], line: int, seen: dict[int, int]) -> int:
    if ID_KEY not in record:
        raise ImportProblem(f"the record has no {ID_KEY!r}: the item's id as imported", line=line, field=ID_KEY)
    external = record[ID_KEY]
    item_id = items.get(str(external)) if isinstance(external, str | int) and not isinstance(external, bool) else None
    if item_id is None:
        raise ImportProblem(f"no item of the project has the id {external!r}", line=line, field=ID_KEY)
    if item_id in seen:
        raise ImportProblem(f"item {external!r} was predicted already on line {seen[item_id]}", line=line, field=ID_KEY)
    seen[item_id] = line
    return item_id


def _labels(
    kind: TaskKind, payload: Mapping[str, Any], record: Mapping[str, Any], fields: list[str], line: int
) -> dict[str, Any]:
    labels: dict[str, Any] = {}
    for name, value in record.items():
        if name == ID_KEY:
            continue
        if name not in fields:
            raise ImportProblem(
                f"not a label field of the project; its label fields: {', '.join(fields) or 'none'}",
                line=line,
                field=name,
            )
        if value is None:  # the model gave no label here
            continue
        labels[name] = _value(kind, payload, name, value, line)
    if len(record) <= 1:  # a field given as null is a prediction of nothing (docs/predictions.md)
        raise ImportProblem(f"the record predicts none of the label fields ({', '.join(fields)})", line=line)
    return labels


def records(text: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line, record) of a JSON array of objects or of JSON Lines (one object a line, blank lines
    skipped); a record is numbered by the line it starts on. Read by the one loader (issue 37):
    nesting, numbers, NUL and surrogates are refused naming the line and the key."""
    if not text.lstrip().startswith("["):
        yield from jsonl_records(text)
        return
    try:
        values = json_array(text)
    except Refused as exc:
        raise ImportProblem(exc.message, line=exc.line, field=exc.path) from None
    for line, value in values:
        yield line, _object(value, line)


def _object(value: Any, line: int) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ImportProblem(f"a record must be a JSON object, got {type(value).__name__}", line=line)
    return value
