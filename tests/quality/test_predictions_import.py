"""Importing a model's predictions (`import_predictions`): all or nothing, each refusal naming its
record's line and field, values checked by the kind's own parse of a field's value; importing a
model's name again replaces its predictions."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.kinds import ImportProblem, get_kind
from annotation.models import Item
from quality.models import Prediction
from quality.services.predictions import predictions_import
from tests.factories import RECAM_PAYLOAD, ProjectFactory, TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory(kind="recam", name="predicted")
    Item.objects.bulk_create(
        Item(project=project, external_id=f"q{n}", payload={**RECAM_PAYLOAD, "question": f"Q{n} @placeholder ."})
        for n in range(3)
    )
    return project


def jsonl(*records: dict) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def refused(project, data: bytes) -> ImportProblem:
    with pytest.raises(ImportProblem) as caught:
        predictions_import(project=project, data=data, model="m")
    assert not Prediction.objects.exists()  # nothing of the file was written
    return caught.value


def test_a_file_is_stored_with_the_kinds_values(project):
    data = jsonl({"id": "q0", "post_choice": 2, "difficulty": "easy"}, {"id": "q1", "post_choice": "3"})
    report = predictions_import(project=project, data=data, model=" gpt-x ")
    assert (report.model, report.created, report.replaced) == ("gpt-x", 2, 0)
    stored = {p.item.external_id: p.labels for p in Prediction.objects.select_related("item")}
    # "3" parses as the number the choice is stored as, as the adjudicator's own value would
    assert stored == {"q0": {"post_choice": 2, "difficulty": "easy"}, "q1": {"post_choice": 3}}


def test_a_record_whose_only_field_is_null_is_no_prediction(project):
    """docs/predictions.md: null means no prediction of the field; all null: none of the item."""
    data = jsonl({"id": "q0", "post_choice": None}, {"id": "q1", "post_choice": 3})
    report = predictions_import(project=project, data=data, model="m")
    assert report.created == 1
    assert list(Prediction.objects.values_list("item__external_id", flat=True)) == ["q1"]


@pytest.mark.parametrize(
    ("records", "line", "field", "words"),
    [
        ([{"id": "q0", "post_choice": 1}, {"id": "nope", "post_choice": 1}], 2, "id", "no item of the project"),
        ([{"post_choice": 1}], 1, "id", "has no 'id'"),
        ([{"id": "q0", "post_choice": 1}, {"id": "q0", "post_choice": 2}], 2, "id", "predicted already on line 1"),
        ([{"id": "q0", "post_choice": 1}, {"id": "q1", "colour": "red"}], 2, "colour", "not a label field"),
        ([{"id": "q0", "difficulty": "impossible"}], 1, "difficulty", "is refused"),
        ([{"id": "q0"}], 1, None, "predicts none of the label fields"),
    ],
)
def test_a_bad_record_names_its_line_and_field(project, records, line, field, words):
    problem = refused(project, jsonl(*records))
    assert (problem.line, problem.field) == (line, field)
    assert words in problem.message


def test_a_json_array_names_the_line_a_record_starts_on(project):
    text = '[\n  {"id": "q0", "post_choice": 1},\n  {"id": "q1",\n   "difficulty": "hard?"}\n]\n'
    problem = refused(project, text.encode())
    assert (problem.line, problem.field) == (3, "difficulty")
    assert "hard?" in str(problem) and str(problem).startswith("line 3, field 'difficulty': ")


def test_bad_json_and_empty_files_are_refused(project):
    assert refused(project, b'{"id": "q0", "post_choice": 1}\n{"id": \n').line == 2
    assert "empty" in str(refused(project, b"  \n"))
    assert refused(project, b"[1]").message.startswith("a record must be a JSON object")


def test_importing_a_model_again_replaces_its_predictions_only(project):
    predictions_import(project=project, data=jsonl({"id": "q0", "post_choice": 1}), model="a")
    predictions_import(project=project, data=jsonl({"id": "q0", "post_choice": 4}), model="b")
    report = predictions_import(project=project, data=jsonl({"id": "q1", "post_choice": 0}), model="a")
    assert report.replaced == 1
    rows = {(p.model, p.item.external_id, p.labels["post_choice"]) for p in Prediction.objects.select_related("item")}
    assert rows == {("a", "q1", 0), ("b", "q0", 4)}


def test_the_command_imports_and_names_the_problem(project, tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_bytes(jsonl({"id": "q0", "post_choice": 1}, {"id": "q2", "relation": "summarize"}))
    bad.write_bytes(jsonl({"id": "q0", "post_choice": 1}, {"id": "q9", "post_choice": 1}))
    out = io.StringIO()
    call_command("import_predictions", str(project.pk), str(good), "--model", "gpt-x", stdout=out)
    assert "2 predictions of gpt-x imported" in out.getvalue()
    with pytest.raises(CommandError, match=r"bad.jsonl: line 2, field 'id': no item .*Nothing was imported"):
        call_command("import_predictions", str(project.pk), str(bad), "--model", "gpt-x")
    assert Prediction.objects.filter(model="gpt-x").count() == 2


def test_a_researcher_sees_only_their_teams_predictions(project, client):
    other = ProjectFactory(kind="recam", name="other team's", team=TeamFactory(name="Other"))
    Item.objects.create(project=other, external_id="q0", payload=RECAM_PAYLOAD)
    predictions_import(project=project, data=jsonl({"id": "q0", "post_choice": 1}), model="ours-model")
    predictions_import(project=other, data=jsonl({"id": "q0", "post_choice": 2}), model="theirs-model")
    client.force_login(staff_with("view_", teams=[project.team]))
    page = client.get(reverse("admin:quality_prediction_changelist")).content.decode()
    assert "ours-model" in page and "theirs-model" not in page and "other team" not in page
    theirs = Prediction.objects.get(model="theirs-model")
    assert client.get(reverse("admin:quality_prediction_change", args=[theirs.pk])).status_code == 302


def test_the_api_imports_lists_and_names_the_problem(project):
    api = APIClient()
    api.force_authenticate(staff_with("view_", "add_prediction", teams=[project.team]))
    url = reverse("api-project-predictions", args=[project.pk])

    def post(data: bytes, model: str = "gpt-x"):
        return api.post(url, {"file": SimpleUploadedFile("p.jsonl", data), "model": model}, format="multipart")

    answer = post(jsonl({"id": "q0", "post_choice": 1}, {"id": "q1", "colour": "red"}))
    assert answer.status_code == 400
    assert (answer.json()["line"], answer.json()["field"]) == (2, "colour")
    assert not Prediction.objects.exists()
    answer = post(jsonl({"id": "q0", "post_choice": 1}))
    assert answer.status_code == 200 and answer.json() == {"model": "gpt-x", "created": 1, "replaced": 0, "unnamed": ""}
    listed = api.get(url).json()
    assert [(row["model"], row["predictions"]) for row in listed] == [("gpt-x", 1)]
    other = ProjectFactory(kind="recam", name="other team's", team=TeamFactory(name="Other"))
    assert api.get(reverse("api-project-predictions", args=[other.pk])).status_code == 404
    reader = APIClient()
    reader.force_authenticate(staff_with("view_", teams=[project.team]))  # may read, may not import
    assert reader.get(url).status_code == 200
    assert reader.post(url, {"file": SimpleUploadedFile("p.jsonl", b"{}"), "model": "m"}).status_code == 403


def test_gcrcs_answer_key_by_label_field_is_what_annotations_give():
    kind = get_kind("gcrc")
    record = {
        "id": "g1",
        "title": "t",
        "passage": "第一句话。第二句话。第三句话。",
        "question": "下列说法正确的是",
        "options": ["甲", "乙", "丙", "丁"],
        "answer": "A",
        "evidences": [["第二句话。"], ["第一句话。", "第三句话。"], [], []],
        "error_type": ["", "DTL", "", ""],
        "reasoning_ability": ["DED", "DED", "DED", "DED"],
    }
    (item,) = kind.parse(json.dumps({"data": [record]}, ensure_ascii=False))
    gold = kind.gold_labels(item.payload)
    assert gold["a_skill"] == "DED" and gold["b_error"] == "DTL" and "a_error" not in gold
    assert (gold["a_evidence"], gold["b_evidence"]) == ([2], [1, 3]) and "c_evidence" not in gold
    # each value is one a prediction (and so an annotation) of the field may hold
    assert all(kind.prediction_value(item.payload, name, value) == value for name, value in gold.items())


def test_a_task_files_choice_must_be_one_of_the_items_options():
    from annotation.services.imports import items_import
    from annotation.services.projects import project_create
    from tests.annotation.test_kind_contract import TASK_FILE
    from tests.conftest import data_file

    project = project_create(name="choices", team=TeamFactory(), task_file=TASK_FILE)
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    problem = refused(project, jsonl({"id": "r1", "second_choice": "lamp"}, {"id": "r2", "second_choice": "moon"}))
    assert (problem.line, problem.field) == (2, "second_choice")
    assert "“moon” is not one of:" in problem.message  # r2's options, from the item
    predictions_import(project=project, data=jsonl({"id": "r1", "second_choice": "lamp", "sure": 4}), model="m")
    assert Prediction.objects.get().labels == {"second_choice": "lamp", "sure": 4}
