"""A Label Studio export's predictions imported as models' predictions (`predictions_import`, the
command, the API): each task matched to its item as the Label Studio item import matches it, each
prediction's results read back as an annotation's are and checked by `prediction_value`, one
model per `model_version` (a name given names them all), all or nothing, refusals naming the task,
its line and the field; then scored by a quality run (checked against sklearn). The fixture,
tests/fixtures/label_studio/classification_predictions.json, is written after Label Studio's
documented export format: the tasks of classification_export.json, predicted by two models."""

from __future__ import annotations

import io
import json
import warnings
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient
from sklearn.metrics import accuracy_score, cohen_kappa_score

from annotation.kinds import ImportProblem
from annotation.models import Project
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.exports import export_open
from quality.models import Prediction, QualityRun
from quality.services.predictions import predictions_import
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db

TASK_FILE = data_file("label_studio", "classification_task.yaml").read_text(encoding="utf-8")
LS_EXPORT = data_file("label_studio", "classification_export.json").read_bytes()
PREDICTED = data_file("label_studio", "classification_predictions.json").read_bytes()
V2, V3 = "made-up-model 2", "made-up-model 3"
#: the fixture's predictions as stored: model -> item id -> labels
STORED = {
    V2: {
        "c-1": {"sentiment": "Positive", "topics": ["Quality"]},
        "c-2": {"sentiment": "Negative", "topics": ["Delivery", "Price"]},
        "c-3": {"sentiment": "Positive"},
    },
    V3: {
        "c-1": {"sentiment": "Positive"},
        "c-2": {"sentiment": "Neutral", "topics": ["Delivery"]},
        "c-3": {"sentiment": "Neutral"},
        "c-4": {"sentiment": "Positive", "topics": ["Price"]},
    },
}
#: the humans' sentiment in classification_export.json (c-4 is not annotated)
HUMANS = {"c-1": "Positive", "c-2": "Negative", "c-3": "Neutral"}


@pytest.fixture
def project() -> Project:
    project = project_create(name="From Label Studio", team=TeamFactory(), task_file=TASK_FILE)
    items_import(project=project, data=LS_EXPORT, filename="classification_export.json")
    return project


def stored(project: Project) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for p in Prediction.objects.filter(project=project).select_related("item"):
        found.setdefault(p.model, {})[p.item.external_id] = p.labels
    return found


def tasks() -> list[dict[str, Any]]:
    return json.loads(PREDICTED)


def dumped(changed: list[dict[str, Any]]) -> bytes:
    return json.dumps(changed, indent=2).encode()


def task_line(data: bytes, number: int) -> int:
    """The line task `number` (from 1) starts on: the fixture is indented by two."""
    starts = [n for n, line in enumerate(data.decode().splitlines(), start=1) if line == "  {"]
    return starts[number - 1]


def refused(project: Project, data: bytes, model: str = "") -> ImportProblem:
    before = stored(project)
    with pytest.raises(ImportProblem) as caught:
        predictions_import(project=project, data=data, model=model)
    assert stored(project) == before  # nothing of the file was written
    return caught.value


def test_each_model_version_is_stored_as_a_model(project):
    report = predictions_import(project=project, data=PREDICTED)
    assert (report.model, report.created, report.replaced) == (f"{V2}, {V3}", 7, 0)
    assert stored(project) == STORED
    # again: each model's predictions replaced as a whole, another model's left alone
    predictions_import(project=project, data=b'[{"id": "c-1", "sentiment": "Neutral"}]', model="other")
    only_v3 = [{**t, "predictions": [p for p in t["predictions"] if p["model_version"] == V3]} for t in tasks()]
    report = predictions_import(project=project, data=dumped(only_v3))
    assert (report.model, report.created, report.replaced) == (V3, 4, 4)
    assert stored(project) == {**STORED, "other": {"c-1": {"sentiment": "Neutral"}}}


def test_a_name_given_names_every_prediction(project):
    only_v2 = [{**t, "predictions": [p for p in t["predictions"] if p["model_version"] == V2]} for t in tasks()]
    report = predictions_import(project=project, data=dumped(only_v2), model="renamed")
    assert (report.model, report.created) == ("renamed", 3)
    assert stored(project) == {"renamed": STORED[V2]}
    # two versions under one name: the second prediction of a task is refused, naming it
    problem = refused(project, PREDICTED, model="renamed")
    assert (problem.line, problem.field) == (task_line(PREDICTED, 1), "model_version")
    assert "task 1 (Label Studio), prediction 302" in problem.message and "already" in problem.message


def test_a_quality_run_scores_each_model_against_the_humans(project):
    predictions_import(project=project, data=PREDICTED)
    run = quality_run_create(project=project)
    assert run.status == QualityRun.Status.DONE, run.error
    models = run.report["predictions"]["models"]
    assert set(models) == {V2, V3}
    for model in (V2, V3):
        truth = list(HUMANS.values())
        guess = [STORED[model][item]["sentiment"] for item in HUMANS]
        scores = models[model]["fields"]["sentiment"]
        assert scores["n_items"] == len(HUMANS)
        assert scores["accuracy"] == pytest.approx(accuracy_score(truth, guess))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert scores["kappa"] == pytest.approx(cohen_kappa_score(truth, guess))


def with_change(number: int, change) -> bytes:
    changed = tasks()
    change(changed[number - 1])
    return dumped(changed)


def _not_an_option(task: dict[str, Any]) -> None:
    task["predictions"][0]["result"][0]["value"]["choices"] = ["Furious"]


def _two_choices(task: dict[str, Any]) -> None:
    task["predictions"][0]["result"][0]["value"]["choices"] = ["Positive", "Negative"]


def _unknown_item(task: dict[str, Any]) -> None:
    task["data"]["ref"] = "c-99"


def _no_model(task: dict[str, Any]) -> None:
    del task["predictions"][1]["model_version"]


def _unknown_question(task: dict[str, Any]) -> None:
    task["predictions"][0]["result"][0]["from_name"] = "mood"


def _unread_type(task: dict[str, Any]) -> None:
    task["predictions"][0]["result"][0]["type"] = "rectanglelabels"


@pytest.mark.parametrize(
    ("number", "change", "field", "words"),
    [
        (2, _not_an_option, "sentiment", "prediction 303: 'Furious' is refused"),
        (2, _two_choices, "sentiment", "prediction 303: question 'sentiment' takes one choice"),
        (3, _unknown_item, "data.ref", "no item of the project has the id 'c-99'"),
        (1, _unknown_question, "mood", "no label question of the task file is named so"),
        (1, _unread_type, "sentiment", "'rectanglelabels' is not imported"),
    ],
)
def test_a_result_that_does_not_fit_refuses_the_file_naming_task_line_and_field(project, number, change, field, words):
    predictions_import(project=project, data=b'[{"id": "c-1", "sentiment": "Neutral"}]', model=V2)
    data = with_change(number, change)
    problem = refused(project, data)
    assert (problem.line, problem.field) == (task_line(data, number), field)
    assert f"task {number} (Label Studio)" in problem.message and words in problem.message


def test_a_prediction_naming_no_model_is_named_after_the_file_and_keeps_its_score(project, tmp_path):
    """Label Studio saves a prediction made without a model with `model_version` ""."""
    data = tasks()
    data[0]["predictions"] = [{**data[0]["predictions"][0], "model_version": "", "score": 0.75}]
    del data[1]["predictions"][0]["model_version"]
    with pytest.raises(ImportProblem, match=r"task 1 \(Label Studio\): prediction 1 is only an id \(301\)"):
        predictions_import(project=project, data=dumped([{**data[0], "predictions": [301]}]))
    path = tmp_path / "project-3-at-2025.json"
    path.write_bytes(dumped(data))
    out = io.StringIO()
    call_command("import_predictions", str(project.pk), str(path), stdout=out)
    assert "Predictions naming no model were named 'unnamed (project-3-at-2025.json)'" in out.getvalue()
    found = Prediction.objects.filter(project=project, model="unnamed (project-3-at-2025.json)")
    assert sorted(found.values_list("item__external_id", "score")) == [
        ("c-1", 0.75),
        ("c-2", 0.77),
    ]  # the file's scores


def test_tasks_without_predictions_are_skipped_and_none_at_all_is_refused(project):
    some = tasks()
    some[0]["predictions"] = []
    del some[1]["predictions"]
    report = predictions_import(project=project, data=dumped(some))
    assert report.created == 3  # both models on task 3, model 3 on task 4
    assert stored(project) == {V2: {"c-3": STORED[V2]["c-3"]}, V3: {k: STORED[V3][k] for k in ("c-3", "c-4")}}
    none = [{**t, "predictions": []} for t in tasks()]
    assert "no predictions" in refused(project, dumped(none)).message


def test_the_command_and_the_api_take_the_export_without_a_name(project, tmp_path):
    path = tmp_path / "export.json"
    path.write_bytes(PREDICTED)
    out = io.StringIO()
    call_command("import_predictions", str(project.pk), str(path), stdout=out)
    assert f"7 predictions of {V2}, {V3} imported" in out.getvalue()
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_bytes(b'{"id": "c-1", "sentiment": "Neutral"}')
    with pytest.raises(CommandError, match="model's name"):  # the platform's own records need a name
        call_command("import_predictions", str(project.pk), str(jsonl))

    api = APIClient()
    api.force_authenticate(staff_with("view_", "add_prediction", teams=[project.team]))
    url = reverse("api-project-predictions", args=[project.pk])
    bad = with_change(2, _not_an_option)
    answer = api.post(url, {"file": SimpleUploadedFile("export.json", bad)}, format="multipart")
    assert answer.status_code == 400
    assert (answer.json()["line"], answer.json()["field"]) == (task_line(bad, 2), "sentiment")
    answer = api.post(url, {"file": SimpleUploadedFile("export.json", PREDICTED)}, format="multipart")
    assert answer.status_code == 200 and answer.json() == {
        "model": f"{V2}, {V3}",
        "created": 7,
        "replaced": 7,
        "unnamed": "",
    }
    assert stored(project) == STORED


def test_the_item_import_still_leaves_predictions_unread():
    """A prediction the predictions import refuses does not stop the items' import."""
    project = project_create(name="items only", team=TeamFactory(), task_file=TASK_FILE)
    data = with_change(1, _unread_type)
    assert items_import(project=project, data=data, filename="export.json").created == 4
    assert stored(project) == {}


def test_the_export_writes_the_predictions_and_they_round_trip(project):
    """Label Studio -> here -> Label Studio's JSON (predictions beside the annotations) -> a fresh
    project with its items: the same predictions per model and item."""
    predictions_import(project=project, data=PREDICTED)
    exported = b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks)
    by_ref = {task["data"]["ref"]: task for task in json.loads(exported)}
    first = by_ref["c-2"]["predictions"]
    assert [p["model_version"] for p in first] == [V2, V3]
    assert [(r["from_name"], r["type"], r["value"]) for r in first[0]["result"]] == [
        ("sentiment", "choices", {"choices": ["Negative"]}),
        ("topics", "choices", {"choices": ["Delivery", "Price"]}),
    ]
    assert all(r["to_name"] == "text" for p in first for r in p["result"])
    assert len(by_ref["c-1"]["annotations"]) == 2  # the annotations stay beside them

    fresh = project_create(name="Back from Label Studio", team=TeamFactory(), task_file=TASK_FILE)
    assert items_import(project=fresh, data=exported, filename="tasks.json").created == 4
    report = predictions_import(project=fresh, data=exported)
    assert (report.model, report.created) == (f"{V2}, {V3}", 7)
    assert stored(fresh) == stored(project) == STORED
