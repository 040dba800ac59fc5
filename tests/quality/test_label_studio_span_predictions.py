"""A model's predicted spans are exported to Label Studio as spans of the item's text (offsets
in code points, as stored: an emoji is one), and a prediction of nothing is left out."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.exports import export_open
from quality.models import Prediction
from quality.services.predictions import predictions_import
from tests.conftest import FIXTURES
from tests.factories import TeamFactory

pytestmark = pytest.mark.django_db

TASK_FILE = (FIXTURES.parents[1] / "examples" / "tasks" / "named_entities" / "task.json").read_text()
ITEMS = [
    {"sentence_id": "e1", "sentence": "🎉 Anna Berg opened a café in Köln."},
    {"sentence_id": "e2", "sentence": "Nobody here."},
]


def test_span_predictions_are_spans_of_the_text_and_empty_ones_are_left_out():
    project = project_create(name="ner", team=TeamFactory(), task_file=TASK_FILE)
    items_import(project=project, data="\n".join(json.dumps(i, ensure_ascii=False) for i in ITEMS).encode())
    records = [{"id": "e1", "entities": ["2-11 PER", "29-33 LOC"]}, {"id": "e2", "entities": ["0-6 PER"]}]
    predictions_import(project=project, data=json.dumps(records).encode(), model="ner")
    Prediction.objects.filter(item__external_id="e2").update(labels={"entities": []})  # predicted nothing
    Prediction.objects.filter(item__external_id="e1").update(score=0.93)
    # as read from Label Studio's tasks: span objects (without their text)
    spans = [{"start": 2, "end": 11, "label": "PER"}, {"start": 29, "end": 33, "label": "LOC"}]
    Prediction.objects.create(
        project=project,
        item=project.items.get(external_id="e1"),
        model="ls",
        labels={"entities": spans},
        imported_at=timezone.now(),
    )
    tasks = json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks))
    other, first = tasks[0]["predictions"]  # by model name
    assert other["model_version"] == "ls" and [e["value"] for e in other["result"]] == [
        e["value"] for e in first["result"]
    ]
    assert first["score"] == 0.93 and first["model_version"] == "ner"
    values = [entry["value"] for entry in first["result"]]
    assert values == [
        {"start": 2, "end": 11, "text": "Anna Berg", "labels": ["PER"]},
        {"start": 29, "end": 33, "text": "Köln", "labels": ["LOC"]},
    ]
    assert tasks[1]["predictions"] == []
