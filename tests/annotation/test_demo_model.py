"""The demo's "Run the model" step: `load_demo` connects the demo team to the local model endpoint
and estimates a run on ReCAM (and each example task file); running that estimate against the
local endpoint labels every item, and the quality app reads the labels as that model's predictions."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings

from annotation.models import ModelConnection, ModelRun, Project
from annotation.services.model_runs import model_run_execute
from quality.prediction_selectors import project_predictions

pytestmark = pytest.mark.django_db


def load_demo(*args: str) -> str:
    out = StringIO()
    call_command("load_demo", "--password", "pw", *args, stdout=out)
    return out.getvalue()


def test_the_demo_estimates_a_model_run_on_recam_and_each_example_and_says_where_to_run_it():
    printed = load_demo("--examples")
    connection = ModelConnection.objects.get(name="local-model")
    recam = Project.objects.get(name="ReCAM demo")
    runs = ModelRun.objects.filter(connection=connection)
    examples = Project.objects.filter(name__startswith="Example: ")
    assert examples.exists()
    assert set(runs.values_list("project", flat=True)) == {recam.pk, *examples.values_list("pk", flat=True)}
    run = runs.get(project=recam)
    assert run.status == "estimated" and run.items_total == recam.items.count() and run.estimated_cost > 0
    assert f"Model run:   ReCAM demo: {run.items_total} items, estimated cost {run.estimated_cost:.4f}" in printed
    assert "/admin/annotation/modelrun/" in printed

    load_demo("--examples")  # again: nothing new
    assert ModelRun.objects.filter(connection=connection).count() == runs.count()


@override_settings(LLM_TIMEOUT_SECONDS=5, LLM_MAX_RETRIES=2)
def test_the_demos_model_run_labels_recam_against_the_local_endpoint(local_model, settings):
    settings.LLM_LOCAL_URL = local_model.base_url
    load_demo()
    run = ModelRun.objects.get(project__name="ReCAM demo", connection__name="local-model")
    assert run.connection.base_url == local_model.base_url

    done = model_run_execute(run=run)

    assert done.status == "done", done.error
    assert done.items_done == done.items_total == run.project.items.count()
    predicted = project_predictions(run.project)["local-model"]
    assert set(predicted) == set(run.project.items.values_list("pk", flat=True))
    assert all(labels for labels in predicted.values())
