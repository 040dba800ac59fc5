"""Label Studio's task JSON imported into a task-file project: each task's `data` is an item (the
task file's id key, else the Label Studio task id, is its id); a task that does not fit names its
number and key, and nothing is imported."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotation.kinds import ImportProblem
from annotation.models import Item, Project
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import TeamFactory

pytestmark = pytest.mark.django_db

TASK_FILE = data_file("label_studio", "sentiment_task.yaml").read_text(encoding="utf-8")
EXPORT = json.loads(data_file("label_studio", "sentiment_export.json").read_text(encoding="utf-8"))
#: the same task without an id key: items are named by Label Studio's task ids
NO_ID_KEY = TASK_FILE.replace("  id: review_id\n", "")


def project(task_file: str = TASK_FILE) -> Project:
    return project_create(name="LS", team=TeamFactory(), task_file=task_file)


def imported(target: Project, tasks: list[Any]) -> None:
    items_import(project=target, data=json.dumps(tasks, indent=1).encode(), filename="export.json")


def test_each_task_data_is_an_item_named_by_the_task_files_id_key():
    target = project()
    report = items_import(
        project=target, data=data_file("label_studio", "sentiment_export.json").read_bytes(), filename="e.json"
    )
    assert (report.created, report.total) == (3, 3)
    items = dict(Item.objects.filter(project=target).values_list("external_id", "payload"))
    assert items == {task["data"]["review_id"]: task["data"] for task in EXPORT}
    assert "annotations" not in str(items)  # the task's own keys stay out of the item


def test_without_an_id_key_the_label_studio_task_id_names_the_item():
    target = project(NO_ID_KEY)
    imported(target, EXPORT)
    assert sorted(Item.objects.filter(project=target).values_list("external_id", flat=True)) == ["101", "102", "103"]


def test_an_import_task_list_of_data_only_is_read_too():
    """Label Studio's import JSON may be a list of `{"data": {...}}`: no ids, no annotations."""
    target = project(NO_ID_KEY)
    imported(target, [{"data": task["data"]} for task in EXPORT])
    payloads = sorted(Item.objects.filter(project=target).values_list("payload__review_id", flat=True))
    assert payloads == ["r-1", "r-2", "r-3"]


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        (lambda task: task.pop("data"), "task 2 (Label Studio) has no 'data' object", "data"),
        (lambda task: task.update(data={}), "task 2 (Label Studio): 'data' is empty", "data"),
        (lambda task: task.update(id=[1]), "task 2 (Label Studio): 'id' must be a number or a text", "id"),
        (lambda task: task["data"].pop("text"), "task 2 (Label Studio): missing or empty", "data.text"),
        (lambda task: task["data"].update(review_id="r-1"), "task 2 (Label Studio): the id 'r-1' is used twice", None),
        (lambda task: task["data"].update(review_id=None), "task 2 (Label Studio): missing, or not a string", None),
    ],
    ids=["no-data", "empty-data", "bad-id", "missing-key", "same-id", "no-item-id"],
)
def test_a_bad_task_names_its_number_and_key_and_nothing_is_imported(change, message, field):
    tasks = json.loads(json.dumps(EXPORT))
    change(tasks[1])
    target = project()
    with pytest.raises(ImportProblem) as problem:
        imported(target, tasks)
    assert message in problem.value.message
    if field is not None:
        assert problem.value.field == field
    else:
        assert problem.value.field == "data.review_id"
    assert problem.value.line is not None and problem.value.line > 1
    assert not Item.objects.filter(project=target).exists()


def test_a_task_files_own_data_key_keeps_the_array_its_records():
    """An item key named `data` means the records are the task file's own, not Label Studio's."""
    own = TASK_FILE.replace("required: [text]", "required: [text, data]")
    target = project(own)
    imported(target, [{"review_id": "x", "text": "t", "data": {"a": 1}}])
    assert Item.objects.get(project=target).payload == {"review_id": "x", "text": "t", "data": {"a": 1}}
