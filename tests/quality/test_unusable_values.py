"""Issue 37: a value the importers accepted before they checked it (a Label Studio `lead_time` of
1e308, a negative or a text time) never breaks a later run: the run reads it as unknown and names
it with its item and annotator, and every export (tables, Label Studio, Hub folder) still works.
The import now refuses such values where they enter."""

from __future__ import annotations

import json

import pytest

from annotation.kinds import ImportProblem
from annotation.models import Response
from annotation.services.imports import items_import
from quality.exports import ExportUnavailable, dataset_formats, export_open, project_datasets
from quality.exports.hub import hub_folder_write
from quality.services.runs import quality_run_create
from tests.quality.test_label_studio_annotations import LS_EXPORT, new_project

pytestmark = pytest.mark.django_db

#: what the Label Studio import stored before issue 37 (NaN and Infinity: no database stores them)
STORED_BEFORE = [1e308, -5.0, 10.0**15, "fast"]


def test_a_run_and_every_export_work_on_every_value_stored_before(tmp_path):
    project = new_project("stored before")
    project.settings = {**project.settings, "too_fast_seconds": 30, "drop_too_fast": True, "too_fast_page_seconds": 0}
    project.save()
    items_import(project=project, data=LS_EXPORT, filename="export.json")
    responses = list(Response.objects.filter(item__project=project, completed_at__isnull=False).order_by("id"))
    for response, value in zip(responses, STORED_BEFORE, strict=True):
        page = next(iter(response.timings))
        response.timings[page]["seconds"] = value
        response.save(update_fields=["timings"])

    run = quality_run_create(project=project)

    assert run.status == "done", run.error
    named = {(row["item"], row["annotator"], row["field"]) for row in run.report["unusable_values"]}
    pairs = {("c-1", "3"), ("c-2", "3"), ("c-1", "8"), ("c-3", "8")}
    assert named == {(item, annotator, "timings.classify.seconds") for item, annotator in pairs}
    for dataset in project_datasets(project):
        for fmt in dataset_formats(dataset):
            try:
                body = b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)
            except ExportUnavailable:
                continue
            assert b"Infinity" not in body and b"NaN" not in body and b"1e+308" not in body, (dataset, fmt)
    folder = hub_folder_write(project=project, directory=tmp_path / "hub")
    assert (tmp_path / "hub" / "README.md").exists(), folder


def with_annotation(**changes) -> bytes:
    tasks = json.loads(LS_EXPORT)
    tasks[0]["annotations"][0].update(changes)
    return json.dumps(tasks).encode()


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"lead_time": 1e308}, "lead_time"),
        ({"lead_time": 10**6}, "lead_time"),
        ({"lead_time": -1}, "lead_time"),
        ({"completed_by": -1}, "completed_by"),
        ({"completed_by": "a\u0007b"}, "completed_by"),
        ({"completed_by": "x" * 5000}, "completed_by"),
    ],
)
def test_the_import_refuses_such_values_naming_task_and_field(changes, field):
    project = new_project("checked")
    with pytest.raises(ImportProblem) as problem:
        items_import(project=project, data=with_annotation(**changes), filename="export.json")
    assert problem.value.field == field and "task 1" in str(problem.value), str(problem.value)
    assert not project.items.exists()


@pytest.mark.parametrize(
    "text,field",
    [
        ('"lead_time": NaN', "[0].annotations[0].lead_time"),
        ('"lead_time": Infinity', "[0].annotations[0].lead_time"),
        ('"lead_time": 1e309', "[0].annotations[0].lead_time"),
        ('"completed_by": ' + "9" * 5000, "[0].annotations[0].completed_by"),
        ('"completed_by": "a\\u0000"', "[0].annotations[0].completed_by"),
    ],
    ids=["NaN", "Infinity", "1e309", "5000 digits", "NUL"],
)
def test_what_json_cannot_hold_is_refused_as_the_file_is_read(text, field):
    marker = with_annotation(lead_time="MARK").decode().replace('"lead_time": "MARK"', text)
    project = new_project("read")
    with pytest.raises(ImportProblem) as problem:
        items_import(project=project, data=marker.encode(), filename="export.json")
    assert problem.value.field == field and problem.value.line, str(problem.value)
    assert not project.items.exists()
