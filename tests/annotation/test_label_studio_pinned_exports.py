"""Real Label Studio 1.23.2 exports (tests/fixtures/label_studio/ls-1.23.2/, made by
tests/label_studio/ against the real server) import unedited: its JSON export (every key it
writes, `allow_skip`..., named in the reply; predictions as ids, refused for a predictions import
naming the snapshot export) and its snapshot export (predictions in full, annotators by e-mail).
Spans keep their code-point offsets (an emoji is one). Fast: no Label Studio needed."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from annotation.kinds import ImportProblem
from annotation.models import Annotator, Response
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.models import Prediction
from quality.services.predictions import predictions_import
from tests.conftest import FIXTURES, data_file
from tests.factories import TeamFactory

pytestmark = pytest.mark.django_db

EXAMPLES = FIXTURES.parents[1] / "examples" / "tasks"
TASK_FILES = {"named_entities": "task.json", "sentiment": "task.yaml"}


def pinned(name: str) -> bytes:
    return data_file("label_studio", "ls-1.23.2", name).read_bytes()


def project_for(name: str):
    return project_create(name=name, team=TeamFactory(), task_file=(EXAMPLES / name / TASK_FILES[name]).read_text())


@pytest.mark.parametrize("name", list(TASK_FILES))
def test_the_json_export_imports_unedited_and_twice_changes_nothing(name):
    data = pinned(f"{name}_json_export.json")
    tasks = json.loads(data)
    project = project_for(name)
    report = items_import(project=project, data=data, filename="export.json")
    annotations = sum(len(t["annotations"]) for t in tasks)
    assert (report.created, report.annotations) == (len(tasks), annotations)
    assert {"allow_skip", "inner_id", "total_annotations", "drafts", "file_upload"} <= set(report.ignored_keys)
    assert "Not read (no data): allow_skip" in report.annotations_note()
    # Label Studio's users by their number there
    people = {str(a["completed_by"]) for t in tasks for a in t["annotations"]}
    assert set(Annotator.objects.filter(project=project).values_list("external_id", flat=True)) == people
    before = list(Response.objects.filter(item__project=project).values_list("id", "answers", "completed_at"))
    again = items_import(project=project, data=data, filename="export.json")
    assert (again.created, again.annotations, again.duplicates) == (0, 0, len(tasks))
    assert list(Response.objects.filter(item__project=project).values_list("id", "answers", "completed_at")) == before
    # its predictions are ids only: refused, naming the task, the line and the field
    with pytest.raises(ImportProblem) as refused:
        predictions_import(project=project, data=data, filename="export.json")
    assert refused.value.field == "predictions" and refused.value.line == 1
    assert "task 1 (Label Studio): prediction 1 is only an id" in refused.value.message
    assert "snapshot export" in refused.value.message


@pytest.mark.parametrize("name", list(TASK_FILES))
def test_the_snapshot_export_brings_predictions_scores_and_annotators_by_email(name):
    data = pinned(f"{name}_snapshot.json")
    tasks = json.loads(data)
    project = project_for(name)
    report = items_import(project=project, data=data, filename="snapshot.json")
    assert report.annotations == sum(len(t["annotations"]) for t in tasks)
    emails = {a["completed_by"]["email"] for t in tasks for a in t["annotations"]}
    assert set(Annotator.objects.filter(project=project).values_list("external_id", flat=True)) == emails
    models = predictions_import(project=project, data=data, filename="snapshot.json")
    assert (models.model, models.created) == ("model-v1", len(tasks))
    scores = {str(t["id"]): t["predictions"][0]["score"] for t in tasks}
    key = "sentence_id" if name == "named_entities" else "review_id"
    by_item = {t["data"][key]: scores[str(t["id"])] for t in tasks}
    stored = dict(Prediction.objects.filter(project=project).values_list("item__external_id", "score"))
    assert stored == by_item and all(isinstance(s, float) for s in stored.values())
    # when each annotation was made and last changed, as Label Studio says
    made = {a["created_at"][:19] for t in tasks for a in t["annotations"]}
    done = {r.completed_at.isoformat()[:19] for r in Response.objects.filter(item__project=project)}
    assert done == made


def test_an_emoji_text_keeps_its_spans_in_code_points():
    data = pinned("named_entities_snapshot.json")
    project = project_for("named_entities")
    items_import(project=project, data=data, filename="snapshot.json")
    response = Response.objects.filter(item__external_id="s99", item__project=project).first()
    assert response is not None
    (spans,) = [value for value in response.answers["entities"].values()]
    sentence = response.item.payload["sentence"]
    assert sentence.startswith("🎉") and [(s["start"], s["end"]) for s in spans] == [(2, 6)]
    assert sentence[2:6] == "Anna"


def test_the_platforms_export_names_no_label_studio_user_by_number():
    for name in TASK_FILES:
        tasks = json.loads(pinned(f"{name}_platform_export.json"))
        people = [a["completed_by"] for t in tasks for a in t["annotations"]]
        assert people and all(set(p) == {"email"} and p["email"].endswith("@annotators.invalid") for p in people)
        assert all(p["score"] is not None and p["result"] for t in tasks for p in t["predictions"])


def test_a_later_export_with_one_annotation_more_adds_exactly_that_one():
    data = pinned("sentiment_snapshot.json")
    older = json.loads(data)
    later = [a for t in older for a in t["annotations"] if a["completed_by"]["email"] == "admin@example.org"]
    assert len(later) == 1  # made in Label Studio by its admin
    for task in older:
        task["annotations"] = [a for a in task["annotations"] if a not in later]
    project = project_for("sentiment")
    first = items_import(project=project, data=json.dumps(older).encode(), filename="older.json")
    report = items_import(project=project, data=data, filename="newer.json")
    assert (report.created, report.annotations, report.merged_annotations) == (0, 1, 1)
    assert "1 annotations were imported as completed annotations, 1 of them onto items already imported" in (
        report.annotations_note()
    )
    assert Response.objects.filter(item__project=project).count() == first.annotations + 1
    who = Response.objects.get(item__project=project, assignment__annotator__external_id="admin@example.org")
    assert who.completed_at.isoformat()[:19] == later[0]["created_at"][:19]
    (page,) = who.timings.values()
    assert page["saved_at"][:19] == later[0]["updated_at"][:19]


def answers_by_annotator(project) -> dict[tuple[str, str], Any]:
    rows = Response.objects.filter(item__project=project).values_list(
        "item__external_id", "assignment__annotator__external_id", "answers", "completed_at"
    )
    return {(item, who): (answers, done) for item, who, answers, done in rows}


@pytest.mark.parametrize("name", list(TASK_FILES))
@pytest.mark.parametrize("flat", ["json_min.json", "csv.csv"])
def test_the_json_min_and_csv_exports_bring_the_same_annotations(name, flat):
    plain = project_for(name)
    items_import(project=plain, data=pinned(f"{name}_json_export.json"), filename="export.json")
    project = project_for(name)
    report = items_import(project=project, data=pinned(f"{name}_{flat}"), filename=flat)
    assert (report.created, report.annotations) == (
        plain.items.count(),
        Response.objects.filter(item__project=plain).count(),
    )
    assert answers_by_annotator(project) == answers_by_annotator(plain)
    again = items_import(project=project, data=pinned(f"{name}_{flat}"), filename=flat)
    assert (again.created, again.annotations) == (0, 0)


def test_a_csv_value_that_does_not_fit_names_task_line_and_field():
    rows = list(csv.DictReader(io.StringIO(pinned("sentiment_csv.csv").decode(), newline="")))
    rows[1]["sentiment"] = "furious"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    project = project_for("sentiment")
    with pytest.raises(ImportProblem) as refused:
        items_import(project=project, data=out.getvalue().encode(), filename="export.csv")
    assert (refused.value.line, refused.value.field) == (3, "sentiment")
    assert (
        f"task {rows[1]['id']} (Label Studio JSON-MIN), annotation {rows[1]['annotation_id']}" in refused.value.message
    )
    assert "furious" in refused.value.message


def test_label_studio_users_are_the_same_annotators_in_every_project_and_go_back_as_themselves():
    from quality.exports import export_open

    data = pinned("sentiment_snapshot.json")
    team = TeamFactory()
    task_file = (EXAMPLES / "sentiment" / TASK_FILES["sentiment"]).read_text()
    exported = []
    for name in ("first", "second"):
        project = project_create(name=name, team=team, task_file=task_file)
        items_import(project=project, data=data, filename="snapshot.json")
        tasks = json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks))
        exported.append(
            sorted((t["data"]["review_id"], a["completed_by"]["email"]) for t in tasks for a in t["annotations"])
        )
    emails = {a["completed_by"]["email"] for t in json.loads(data) for a in t["annotations"]}
    assert exported[0] == exported[1] and {email for _item, email in exported[0]} == emails
