"""A project as Label Studio's JSON: one task per item, in the shape of Label Studio's own export
(its documented "Label Studio JSON format of annotated tasks"), so Label Studio imports it.

- `data`: the item's payload, its keys as they are (a labeling config names them as `$key`);
- `annotations`: one per completed annotation, `completed_by` `{"email": ...}` of a pseudonymous
  account (`annotator_email`: never a number, which Label Studio would take for one of its
  users; Label Studio credits an e-mail only to an account of that e-mail, and refuses the file
  when there is none), `lead_time` its seconds, `created_at` when it was completed,
  `updated_at` when its last page was saved, `result` the label fields' answers typed by the kind
  (`TaskKind.typed_answers`): choices -> `choices`, a rating -> `rating`, a number -> `number`,
  a text -> `textarea`, each marked span -> `labels` with start, end and text. `from_name` is
  the label field, `to_name` the item key the answer is about (the text spans are marked in;
  else the kind's first text column).
- `predictions`: each model's imported prediction of the item (`quality.Prediction`),
  `model_version` the model's name, `result` its values typed as an annotation's
  (`TaskKind.prediction_typed_answers`), `score` the file's; a prediction with no result (the
  model predicted nothing the export can write) is left out. A model run's labels are written
  the same way (`model_version` the model connection's name, `id` its call's, no `score`).

Items are read a chunk at a time, each chunk's annotations with two queries (rows, then when each was last
saved): memory stays flat.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from annotation.kinds import kind_of
from annotation.kinds.label_studio_results import RESULT_TYPES
from annotation.kinds.typed import TypedAnswer
from annotation.models import Item, Project, Response
from annotation.selectors.responses import annotation_rows
from annotation.services.imported_annotations import annotator_email
from quality.models import Prediction
from quality.prediction_selectors import model_run_predictions

from .base import CHUNK_SIZE, EXACT, Dataset, Options

#: a task's keys, in the order of Label Studio's documented example
TASK_KEYS = ["id", "created_at", "updated_at", "project", "data", "annotations", "predictions"]


def result_entries(answer: TypedAnswer, *, to_name: str, prefix: str) -> list[dict[str, Any]]:
    """One answer as Label Studio result entries (a span each for marked spans)."""
    kind, key = RESULT_TYPES[answer.form]
    head = {"from_name": answer.field, "to_name": answer.target or to_name, "type": kind}
    if answer.form == "spans":
        return [
            {
                "id": f"{prefix}-{answer.field}-{n}",
                **head,
                "value": {
                    "start": span["start"],
                    "end": span["end"],
                    "text": span.get("text", ""),
                    key: [] if span.get("label") is None else [str(span["label"])],
                },
            }
            for n, span in enumerate(answer.value, start=1)
        ]
    value = [answer.value] if answer.form == "text" else answer.value
    return [{"id": f"{prefix}-{answer.field}", **head, "value": {key: value}}]


def _annotation(row: dict[str, Any], answers: list[TypedAnswer], to_name: str) -> dict[str, Any]:
    prefix = f"r{row['response_id']}"
    result = [entry for answer in answers for entry in result_entries(answer, to_name=to_name, prefix=prefix)]
    email = annotator_email(annotator_id=row["annotator_id"], external_id=row["annotator"], channel=row["channel"])
    return {
        "id": row["response_id"],
        "completed_by": {"email": email},
        "result": result,
        "was_cancelled": False,
        "ground_truth": False,
        "created_at": row["completed_at"],
        "updated_at": row.get("updated_at") or row["completed_at"],
        "lead_time": row["seconds"],
        "task": row["item_id"],
    }


def _prediction(pk: int, item_id: int, model: str, result: list[dict[str, Any]], score: Any, at: Any) -> dict[str, Any]:
    return {"id": pk, "model_version": model, "score": score, "result": result, "created_at": at, "task": item_id}


def _last_saved(timings: Any) -> str | None:
    """When the annotation's last page was saved (ISO text; None: not said)."""
    pages = timings.values() if isinstance(timings, dict) else ()
    moments = [page["saved_at"] for page in pages if isinstance(page, dict) and isinstance(page.get("saved_at"), str)]
    return max(moments, default=None)


def label_studio(project: Project, options: Options = EXACT) -> Dataset:
    """Every item as a Label Studio task with its completed, confirmed annotations and the
    models' predictions."""
    kind = kind_of(project)
    texts = [column.name for column in kind.item_text_columns]
    items = Item.objects.filter(project=project).order_by("id")

    def annotations_of(item_ids: list[int], to_name: str) -> dict[int, list[dict[str, Any]]]:
        done = Response.objects.filter(item_id__in=item_ids, completed_at__isnull=False).values("id")
        saved = {
            pk: _last_saved(timings)
            for pk, timings in Response.objects.filter(pk__in=done).values_list("id", "timings")
        }
        found: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for row in annotation_rows(project, response_ids=done, chunk_size=CHUNK_SIZE):
            row["updated_at"] = saved.get(row["response_id"])
            found[row["item_id"]].append(_annotation(row, kind.typed_answers(row), to_name))
        return found

    def predictions_of(chunk: dict[int, dict[str, Any]], to_name: str) -> dict[int, list[dict[str, Any]]]:
        rows = Prediction.objects.filter(project=project, item_id__in=list(chunk)).order_by("model", "id")
        fields = ("id", "item_id", "model", "labels", "score", "created_at", "imported_at")
        found: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for pk, item_id, model, labels, score, made, at in rows.values_list(*fields):
            answers = kind.prediction_typed_answers(labels, chunk[item_id])
            result = [entry for a in answers for entry in result_entries(a, to_name=to_name, prefix=f"p{pk}")]
            if result:  # nothing predicted that Label Studio could show: no prediction
                found[item_id].append(_prediction(pk, item_id, model, result, score, (made or at).isoformat()))
        for pk, item_id, model, labels, at in model_run_predictions(project, list(chunk)):
            answers = kind.prediction_typed_answers(labels, chunk[item_id])
            result = [entry for a in answers for entry in result_entries(a, to_name=to_name, prefix=f"m{pk}")]
            if result:
                found[item_id].append(_prediction(pk, item_id, model, result, None, at.isoformat()))
        return found

    def rows() -> Iterator[dict[str, Any]]:
        fields = ("pk", "payload", "created_at")
        chunk: list[tuple[int, dict[str, Any], Any]] = []
        for entry in items.values_list(*fields).iterator(CHUNK_SIZE):
            chunk.append(entry)
            if len(chunk) == CHUNK_SIZE:
                yield from _tasks(chunk)
                chunk = []
        yield from _tasks(chunk)

    def _tasks(chunk: list[tuple[int, dict[str, Any], Any]]) -> Iterator[dict[str, Any]]:
        if not chunk:
            return
        first = chunk[0][1]
        to_name = texts[0] if texts else next(iter(first), "text")
        found = annotations_of([pk for pk, _, _ in chunk], to_name)
        predicted = predictions_of({pk: payload for pk, payload, _ in chunk}, to_name)
        for pk, payload, created in chunk:
            yield {
                "id": pk,
                "created_at": created.isoformat(),
                "updated_at": created.isoformat(),
                "project": project.pk,
                "data": payload,
                "annotations": found.get(pk, []),
                "predictions": predicted.get(pk, []),
            }

    return Dataset("label_studio", lambda: list(TASK_KEYS), rows, items.count)
