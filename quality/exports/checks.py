"""The `checks` dataset: every answer to a check item (attention or gold) or a training item of
the project's batches: who saw which, what was expected and given, whether it was right, and
its time. Check answers are never in the data exports; this is where they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from annotation.kinds import kind_of
from annotation.models import Project, Response

from .base import CHUNK_SIZE, EXACT, Dataset, Options

COLUMNS = [
    "response_id",
    "annotator_id",
    "annotator",
    "channel",
    "batch_id",
    "batch",
    "item_id",
    "external_id",
    "role",
    "expected",
    "given",
    "passed",
    "completed_at",
    "seconds",
]


def _responses(project: Project):
    return Response.objects.filter(item__project=project, item__check_answer__isnull=False)


def checks(project: Project, options: Options = EXACT) -> Dataset:
    """One row per answer to a check or training item (`role`), with the expected labels, the
    labels given (the same label fields), `passed` (empty until the item is completed), and the
    seconds its pages took. No quality run is needed: the answers are judged as they are saved."""
    kind = kind_of(project)
    fields = list(kind.label_fields())

    def rows() -> Iterator[dict[str, Any]]:
        found = (
            _responses(project)
            .select_related("assignment__annotator", "assignment__unit__batch", "item")
            .order_by("id")
        )
        for response in found.iterator(chunk_size=CHUNK_SIZE):
            item, assignment = response.item, response.assignment
            expected = item.check_answer or {}
            row = kind.annotation_row(item.payload, response.answers)
            seconds = [t.get("seconds") for t in (response.timings or {}).values() if isinstance(t, dict)]
            yield {
                "response_id": response.pk,
                "annotator_id": assignment.annotator_id,
                "annotator": assignment.annotator.external_id,
                "channel": assignment.annotator.channel,
                "batch_id": assignment.unit.batch_id,
                "batch": assignment.unit.batch.name,
                "item_id": item.pk,
                "external_id": item.external_id,
                "role": "training" if response.training else "check",
                "expected": expected,
                "given": {f.name: f.value(row) for f in fields if f.name in expected},
                "passed": response.check_passed,
                "completed_at": None if response.completed_at is None else response.completed_at.isoformat(),
                "seconds": round(sum(s for s in seconds if s is not None), 3) if seconds else None,
            }

    return Dataset("checks", lambda: list(COLUMNS), rows, lambda: _responses(project).count())
