"""Test data for the quality tests: awkward text, and many responses made quickly."""

from __future__ import annotations

import json
import math

from django.utils import timezone

from annotation.models import Annotator, Assignment, Item, Project, Response, UnitItem
from annotation.services.batches import batch_create
from tests.factories import RECAM_PAYLOAD, ProjectFactory

AWKWARD_START = 'He said, "Hello, world!"\nThen:'  # 30 characters: quote, comma, newline


def tricky_jsonl() -> bytes:
    """Five labeled ReCAM items whose text has commas, quotes, newlines and non-ASCII."""
    lines = []
    for n in range(5):
        record = {
            "article": f'{AWKWARD_START} naïve café — 中文 Â£{n}; "quoted", and a tab\there. Line {n}\r\nmore text.',
            "question": f'"Hello" , said the @placeholder ( № {n} ) .',
            "option_0": "naïve",
            "option_1": "x,y",
            "option_2": '"q"',
            "option_3": "中文",
            "option_4": "a;b",
            "label": n % 5,
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


def complete_answers(label: int) -> dict:
    span = {"text": "The cat sat", "start": 0, "end": 11}
    return {
        "pre": {"choice": label},
        "post": {"choice": label},
        "second": {"choice": None},
        "support_span": span,
        "relation": {"relation": "summarize"},
        "summary_span": span,
        "difficulty": {"difficulty": "medium"},
    }


def bulk_responses(n: int, *, annotators: int = 3) -> Project:
    """A ReCAM project with at least `n` complete responses, written with bulk_create."""
    project = ProjectFactory(kind="recam", name=f"bulk {n}")
    count = math.ceil(n / annotators)
    Item.objects.bulk_create(
        Item(project=project, external_id=f"b{i}", payload={**RECAM_PAYLOAD, "question": f"Q{i} @placeholder ."})
        for i in range(count)
    )
    batch = batch_create(project=project, name="bulk", items_per_unit=5, assignments_per_unit=annotators)
    people = Annotator.objects.bulk_create(
        Annotator(project=project, channel="invite", external_id=f"bulk-{n}-{k}") for k in range(annotators)
    )
    units = list(batch.units.order_by("position"))
    assignments = Assignment.objects.bulk_create(
        Assignment(unit=u, annotator=a, status=Assignment.Status.SUBMITTED) for u in units for a in people
    )
    by_unit: dict[int, list[tuple[int, int]]] = {}
    for unit_id, item_id, position in UnitItem.objects.filter(unit__batch=batch).values_list(
        "unit_id", "item_id", "position"
    ):
        by_unit.setdefault(unit_id, []).append((item_id, position))
    now = timezone.now()
    answers = complete_answers(RECAM_PAYLOAD["label"])
    timings = {slug: {"seconds": 2.5} for slug in answers}
    Response.objects.bulk_create(
        (
            Response(assignment=asg, item_id=item_id, position=pos, answers=answers, timings=timings, completed_at=now)
            for asg in assignments
            for item_id, pos in by_unit[asg.unit_id]
        ),
        batch_size=2000,
    )
    return project
