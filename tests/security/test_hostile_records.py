"""Issue 37: records that would recurse, overflow or break a later run are refused with a 4xx
naming the line and the key path, by every path that reads them: item imports (JSON array,
Label Studio, GCRC, SCDE), predictions (JSON Lines and JSON array) and the preview's record."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.kinds import ImportProblem, get_kind
from annotation.models import Item
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.models import Prediction
from tests.conftest import data_file
from tests.factories import RECAM_PAYLOAD, ProjectFactory, TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db

DEEP = "[" * 20_000 + "]" * 20_000
#: (JSON value text put at the record's key `x`, what the refusal says)
VALUES = {
    "NaN": ("NaN", "NaN is not a finite number"),
    "Infinity": ("-Infinity", "-Infinity is not a finite number"),
    "1e309": ("1e309", "Infinity is not a finite number"),
    "5000 digits": ("9" * 5000, "an integer of more than 50 digits"),
    "deep": (DEEP, "nested more than 64 levels deep"),
    "surrogate": ('"a\\ud800"', "a lone surrogate"),
    "NUL": ('"a\\u0000"', "a NUL character"),
}
CASES = pytest.mark.parametrize("value,message", VALUES.values(), ids=VALUES.keys())


def array_of(first: dict, value: str) -> bytes:
    """A JSON array of two records, the second (on line 3) holding `value` at key `x`."""
    return ("[\n" + json.dumps(first) + ",\n" + json.dumps(first)[:-1] + ', "x": ' + value + "}\n]").encode()


@pytest.fixture
def task_project():
    text = data_file("task_files", "sentiment.yaml").read_text()
    return project_create(name="reviews", team=TeamFactory(), task_file=text)


@CASES
def test_a_json_array_import_names_line_and_key(task_project, value, message):
    with pytest.raises(ImportProblem) as problem:
        items_import(project=task_project, data=array_of({"review_id": "r1", "text": "ok"}, value), filename="a.json")
    assert message in problem.value.message and problem.value.line == 3, str(problem.value)
    assert problem.value.field == "[1].x"
    assert not Item.objects.exists()


@CASES
def test_a_label_studio_import_names_line_and_key(task_project, value, message):
    task = {"id": 1, "data": {"review_id": "r1", "text": "ok"}, "annotations": []}
    data = ("[\n" + json.dumps(task)[:-1] + ',\n "meta": {"x": ' + value + "}}\n]").encode()
    with pytest.raises(ImportProblem) as problem:
        items_import(project=task_project, data=data, filename="export.json")
    assert message in problem.value.message and problem.value.line == 3, str(problem.value)
    assert problem.value.field == ("[0].meta" if value == DEEP else "[0].meta.x")
    assert not Item.objects.exists()


@pytest.mark.parametrize("slug", ["gcrc", "scde"])
def test_the_kinds_own_json_formats_refuse_deep_nesting(slug):
    with pytest.raises(ImportProblem, match="nested more than 64 levels deep"):
        get_kind(slug).parse('{"data": ' + DEEP + "}" if slug == "gcrc" else "[" + DEEP + "]")


@pytest.fixture
def predicted():
    project = ProjectFactory(kind="recam", name="predicted")
    Item.objects.create(project=project, external_id="q0", payload=RECAM_PAYLOAD)
    api = APIClient()
    api.force_authenticate(staff_with("view_", "add_prediction", teams=[project.team]))
    return project, api


@CASES
@pytest.mark.parametrize("layout", ["jsonl", "array"])
def test_predictions_answer_400_naming_line_and_key(predicted, value, message, layout):
    project, api = predicted
    good = {"id": "q0", "post_choice": 1}
    if layout == "jsonl":
        data = (json.dumps(good) + "\n" + json.dumps(good)[:-1] + ', "x": ' + value + "}\n").encode()
        line, field = 2, "x"
    else:
        data, line, field = array_of(good, value), 3, "[1].x"
    url = reverse("api-project-predictions", args=[project.pk])
    answer = api.post(url, {"file": SimpleUploadedFile("p.json", data), "model": "m"}, format="multipart")
    assert answer.status_code == 400, answer.content[:300]
    body = answer.json()
    assert body["line"] == line and body["field"] == field and message in body["detail"], body
    assert not Prediction.objects.exists()


@CASES
def test_the_preview_answers_400_with_the_reason(client, value, message):
    project = ProjectFactory(name="Preview me")
    client.force_login(staff_with("view_project", teams=[project.team]))
    record = json.dumps(RECAM_PAYLOAD)[:-1] + ', "x": ' + value + "}"
    response = client.post(reverse("surveys:preview", args=[project.pk]), {"record": record})
    assert response.status_code == 400
    assert message in response.content.decode().replace("&quot;", '"').replace("&#x27;", "'")


@pytest.mark.parametrize(
    "cell,message,field",
    [
        ('"' + "[" * 20_000 + "]" * 20_000 + '"', "nested more than 64 levels deep", "options"),
        ('"[""a"", NaN]"', "NaN is not a finite number", "options[1]"),
        ('"[""a"", ' + "9" * 5000 + ']"', "an integer of more than 50 digits", "options[1]"),
    ],
    ids=["deep", "NaN", "5000 digits"],
)
def test_a_tables_json_list_cell_is_read_by_the_same_rules(cell, message, field):
    text = data_file("task_files", "before_reading.yaml").read_text()
    project = project_create(name="reading", team=TeamFactory(), task_file=text)
    table = 'id,question,passage,options,label,candidates\nr1,Q?,P.,"[""a"", ""b""]",a,"[""x"", ""y"", ""z""]"\n'
    table += f'r2,Q?,P.,{cell},a,"[""x"", ""y"", ""z""]"\n'
    with pytest.raises(ImportProblem) as problem:
        items_import(project=project, data=table.encode(), filename="items.csv")
    assert message in problem.value.message and (problem.value.line, problem.value.field) == (3, field), str(
        problem.value
    )
    assert not Item.objects.exists()
