"""A Label Studio file's annotations, checked before anything is imported: each result is
mapped back to the task file's label question by `from_name` and its type, and the answers go
through the page forms an annotator's save goes through. A result that does not fit refuses the
whole file, naming the task's number, the annotation and the field; nothing is imported (the
admin upload, the API and `import_items` alike). The writes are bulk: the queries of an import do not grow with its annotations."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.kinds import ImportProblem
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import TeamFactory, UserFactory

pytestmark = pytest.mark.django_db

TASK_FILE = data_file("label_studio", "classification_task.yaml").read_text(encoding="utf-8")
EXPORT = json.loads(data_file("label_studio", "classification_export.json").read_text(encoding="utf-8"))
SPANS_TASK_FILE = data_file("label_studio", "sentiment_task.yaml").read_text(encoding="utf-8")
SPANS_EXPORT = json.loads(data_file("label_studio", "sentiment_export.json").read_text(encoding="utf-8"))


def project(task_file: str = TASK_FILE) -> Project:
    return project_create(name="LS", team=TeamFactory(), task_file=task_file)


def body(tasks: list[Any]) -> bytes:
    return json.dumps(tasks, indent=1).encode()


def changed(change: Callable[[dict[str, Any]], Any], tasks: list[Any] = EXPORT) -> list[Any]:
    """The export with `change` made to the first result of task 2's first annotation (9003)."""
    copy = json.loads(json.dumps(tasks))
    change(copy[1]["annotations"][0]["result"][0])
    return copy


def nothing_imported(target: Project) -> bool:
    return not any(
        model.objects.filter(**{lookup: target}).exists()
        for model, lookup in (
            (Item, "project"),
            (Annotator, "project"),
            (Batch, "project"),
            (Unit, "batch__project"),
            (Assignment, "unit__batch__project"),
            (Response, "item__project"),
        )
    )


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        (
            lambda r: r["value"].update(choices=["Maybe"]),
            "Select a valid choice. Maybe is not one of the available choices.",
            "sentiment",
        ),
        (lambda r: r.update(from_name="mood"), "no label question of the task file is named so", "mood"),
        (
            lambda r: r.update(type="rating", value={"rating": 2}),
            "question 'sentiment' (single_choice) takes a choices answer, not a rating one",
            "sentiment",
        ),
        (
            lambda r: r["value"].update(choices=["Negative", "Neutral"]),
            "question 'sentiment' takes one choice, not 2",
            "sentiment",
        ),
        (
            lambda r: r.update(type="rectanglelabels"),
            "a result of type 'rectanglelabels' is not imported (known: choices, rating, number, textarea, labels)",
            "sentiment",
        ),
        (lambda r: r["value"].update(choices="Negative"), "'value.choices' must be a list of texts", "sentiment"),
        (lambda r: r.clear(), "result 1 has no 'from_name'", "result"),
    ],
    ids=["not-an-option", "unknown-from-name", "wrong-type", "two-choices", "unknown-type", "bad-value", "no-name"],
)
def test_a_result_that_does_not_fit_refuses_the_file_naming_task_annotation_and_field(change, message, field):
    target = project()
    with pytest.raises(ImportProblem) as problem:
        items_import(project=target, data=body(changed(change)), filename="export.json")
    assert problem.value.message.startswith("task 2 (Label Studio), annotation 9003 (completed_by 3): ")
    assert message in problem.value.message
    assert problem.value.field == field
    assert problem.value.line is not None and problem.value.line > 1
    assert nothing_imported(target)


def test_a_required_question_left_unanswered_is_refused_as_the_page_would():
    tasks = json.loads(json.dumps(EXPORT))
    tasks[1]["annotations"][0]["result"].pop(0)  # sentiment
    target = project()
    with pytest.raises(ImportProblem, match="annotation 9003 .*: This field is required.") as problem:
        items_import(project=target, data=body(tasks), filename="export.json")
    assert problem.value.field == "sentiment"
    assert nothing_imported(target)


def test_a_span_whose_text_is_not_the_items_is_refused():
    tasks = json.loads(json.dumps(SPANS_EXPORT))
    tasks[0]["annotations"][0]["result"][1]["value"]["start"] = 5  # "ettle ", not "kettle"
    target = project(SPANS_TASK_FILE)
    with pytest.raises(ImportProblem, match="the span 5-10 reads 'ettle' in the item, not 'kettle'") as problem:
        items_import(project=target, data=body(tasks), filename="export.json")
    assert problem.value.field == "product" and "task 1 (Label Studio), annotation 5001" in problem.value.message
    assert nothing_imported(target)


def test_two_annotations_of_one_annotator_on_a_task_are_refused():
    tasks = json.loads(json.dumps(EXPORT))
    tasks[0]["annotations"][1]["completed_by"] = 3
    target = project()
    with pytest.raises(ImportProblem, match="annotation 9001 of the same annotator is on this task too") as problem:
        items_import(project=target, data=body(tasks), filename="export.json")
    assert problem.value.field == "completed_by" and "task 1 (Label Studio), annotation 9002" in problem.value.message
    assert nothing_imported(target)


def test_every_result_type_is_read_back_into_its_question():
    """Choices, a span (Labels), a rating, a number and a text (TextArea) into their questions."""
    target = project(SPANS_TASK_FILE)
    report = items_import(project=target, data=body(SPANS_EXPORT), filename="export.json")
    assert (report.created, report.annotations, report.skipped_annotations) == (3, 2, 0)
    answers = {r.item.external_id: r.answers["rate"] for r in Response.objects.select_related("item")}
    assert answers["r-1"] == {
        "sentiment": "positive",
        "product": [{"start": 4, "end": 10, "text": "kettle", "label": "PRODUCT"}],
        "stars": 5,
        "price": 24.5,
        "note": None,
    }
    assert answers["r-2"] == {"sentiment": "negative", "product": [], "stars": None, "price": None, "note": "jams"}


def test_importing_the_file_again_adds_no_annotation():
    target = project()
    items_import(project=target, data=body(EXPORT), filename="export.json")
    again = items_import(project=target, data=body(EXPORT), filename="export.json")
    assert (again.created, again.duplicates, again.annotations) == (0, 4, 0)
    assert Response.objects.filter(item__project=target).count() == 4 and Batch.objects.count() == 1


def test_the_command_says_how_many_annotations_came_in(tmp_path):
    target = project()
    path = tmp_path / "export.json"
    path.write_bytes(body(EXPORT))
    out = io.StringIO()
    call_command("import_items", target.pk, str(path), stdout=out)
    assert "4 annotations were imported as completed annotations; 1 cancelled ones were skipped." in out.getvalue()


def many(tasks: int) -> list[Any]:
    """`tasks` tasks, each annotated by two Label Studio users (both results of the first task)."""
    first = EXPORT[0]
    return [
        {**first, "id": 1000 + n, "data": {**first["data"], "ref": f"m-{n}"}, "predictions": []} for n in range(tasks)
    ]


def test_the_queries_of_an_import_do_not_grow_with_its_annotations():
    counts = []
    for size in (3, 60):
        target = project()
        with CaptureQueriesContext(connection) as queries:
            report = items_import(project=target, data=body(many(size)), filename="export.json")
        assert report.annotations == 2 * size
        counts.append(len(queries))
    # 114 more annotations: at most one more INSERT of responses (SQLite's 999 values a statement)
    assert counts[1] - counts[0] <= 1 and counts[0] <= 20, counts


def test_the_api_counts_the_annotations_and_names_a_refused_field():
    target = project()
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    url = f"/api/projects/{target.pk}/import/"
    wrong = body(changed(lambda r: r["value"].update(choices=["Maybe"])))
    refused = client.post(url, {"file": SimpleUploadedFile("export.json", wrong)}, format="multipart")
    assert refused.status_code == 400 and refused.json()["field"] == "sentiment"
    assert refused.json()["detail"].startswith("line 149, field 'sentiment': task 2 (Label Studio), annotation 9003")
    assert nothing_imported(target)
    done = client.post(url, {"file": SimpleUploadedFile("export.json", body(EXPORT))}, format="multipart")
    assert done.status_code == 200, done.content
    assert done.json() == {**done.json(), "created": 4, "annotations": 4, "skipped_annotations": 1}


def test_the_admin_upload_imports_the_annotations(admin_client):
    target = project()
    url = reverse("admin:annotation_project_import", args=[target.pk])
    response = admin_client.post(url, {"file": SimpleUploadedFile("export.json", body(EXPORT))})
    assert response.status_code == 302
    text = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert "Imported 4 new items" in text and "4 annotations were imported as completed annotations" in text
    assert Response.objects.filter(item__project=target, completed_at__isnull=False).count() == 4


def test_what_no_database_stores_alike_is_refused_before_any_write():
    """A lone surrogate in a text answer, an annotator id longer than the column."""
    tasks = json.loads(json.dumps(SPANS_EXPORT))
    tasks[1]["annotations"][0]["result"][1]["value"]["text"] = ["ja\ud800ms"]
    target = project(SPANS_TASK_FILE)
    with pytest.raises(ImportProblem, match="surrogate") as problem:  # refused as the file is read (issue 37)
        items_import(project=target, data=json.dumps(tasks).encode(), filename="export.json")
    assert problem.value.field == "[1].annotations[0].result[1].value.text[0]"
    assert nothing_imported(target)
    tasks = json.loads(json.dumps(EXPORT))
    tasks[2]["annotations"][0]["completed_by"] = "x" * 201
    target = project()
    with pytest.raises(ImportProblem, match="task 3 .*the annotator's id is longer than 200 characters") as problem:
        items_import(project=target, data=body(tasks), filename="export.json")
    assert problem.value.field == "completed_by"
    assert nothing_imported(target)


def test_a_required_question_that_is_no_label_cannot_take_label_studios_annotations():
    """Label Studio's results answer label questions only: a required other question is left
    unanswered, and the page refuses the annotation as it would refuse an annotator's."""
    extra = "      - id: why\n        type: long_text\n        prompt: Why?\n"
    target = project(TASK_FILE + extra)
    with pytest.raises(ImportProblem, match="task 1 .*annotation 9001 .*This field is required.") as problem:
        items_import(project=target, data=body(EXPORT), filename="export.json")
    assert problem.value.field == "why"
    assert nothing_imported(target)
