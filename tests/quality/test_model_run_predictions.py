"""A model run's labels reach the quality report as that model's predictions, under the
connection's name, with no import: scored per field beside imported models."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.test import override_settings

from annotation.models import Item, ModelConnection
from annotation.services.model_runs import model_run_estimate, model_run_execute
from quality.exports import export_open
from quality.prediction_selectors import prediction_imports, project_predictions
from quality.services.runs import quality_run_create
from tests.annotation.llm_helpers import admin
from tests.factories import ModelCallFactory, ModelConnectionFactory
from tests.quality.test_predictions import annotated_project

pytestmark = pytest.mark.django_db


@override_settings(LLM_TIMEOUT_SECONDS=5, LLM_MAX_RETRIES=2)
def test_a_model_runs_labels_are_predictions_in_the_quality_report(local_model):
    project = annotated_project("recam")
    items = list(Item.objects.filter(project=project))
    truth = {item.external_id: {"post_choice": item.payload["label"]} for item in items}
    admin(local_model, "POST", "models", {"model": "m", "accuracy": 1.0, "answers": truth})
    connection = ModelConnection.objects.create(
        team=project.team,
        name="local-zero-shot",
        base_url=local_model.base_url,
        model="m",
        input_price=Decimal(1),
        requests_per_minute=60_000,  # the local endpoint: no pace to keep
    )
    run = model_run_execute(run=model_run_estimate(project=project, connection=connection))
    assert run.status == "done", run.error
    predicted = project_predictions(project)["local-zero-shot"]
    assert len(predicted) == len(items) and all(predicted[i.pk]["post_choice"] == i.payload["label"] for i in items)
    assert prediction_imports(project)["local-zero-shot"][0] == len(items)
    by_external = project_predictions(project, by="item__external_id")["local-zero-shot"]
    assert set(by_external) == {item.external_id for item in items}

    report = quality_run_create(project=project)
    assert report.status == "done", report.error
    figures = report.report["predictions"]["models"]["local-zero-shot"]
    assert figures["gold"]["post_choice"]["accuracy"] == 1.0  # right on every item with a released answer
    assert "post_choice" in figures["fields"] and figures["as_annotator"]["n_items"] > 0


def test_the_label_studio_export_writes_a_model_runs_newest_labels_beside_imported_predictions():
    project = annotated_project("recam")
    items = list(Item.objects.filter(project=project).order_by("id"))
    model = ModelConnectionFactory(team=project.team, name="local-zero-shot")
    older = ModelCallFactory(connection=model, item=items[0], labels={"post_choice": 0})
    newer = ModelCallFactory(connection=model, item=items[0], labels={"post_choice": 3})
    ModelCallFactory(connection=model, item=items[1], outcome="invalid", reason="not JSON")

    tasks = json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks))

    by_item = {task["id"]: task["predictions"] for task in tasks}
    (written,) = by_item[items[0].pk]
    assert written["model_version"] == "local-zero-shot" and written["id"] == newer.pk != older.pk
    assert [(r["from_name"], r["value"]) for r in written["result"]] == [("post_choice", {"choices": ["3"]})]
    assert by_item[items[1].pk] == []  # an invalid reply is no prediction
    assert all(not predictions for pk, predictions in by_item.items() if pk not in (items[0].pk, items[1].pk))
