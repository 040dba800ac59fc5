"""Label Studio's JSON out (`export --dataset label_studio`) and back in: the tasks carry every
completed annotation's label values in the shape of Label Studio's documented export, and a new
task-file project imports them as the same items.

No Label Studio package validates the shape here: label-studio-sdk (the one that holds the
value models) pulls OpenCV, Pillow, black and a code generator, too heavy for a test-only
dependency. The keys and value shapes below are pinned from Label Studio's documented task
format (labelstud.io guide/task_format) and the control tags' result values (Choices, Labels,
Rating, Number, TextArea), as label-studio-sdk's value models state them."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from annotation.kinds import kind_of
from annotation.models import Annotator, Item, Project, Response
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import UnknownExport, export_open
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

pytestmark = pytest.mark.django_db

TASK_FILE = data_file("label_studio", "sentiment_task.yaml").read_text(encoding="utf-8")
LS_EXPORT = data_file("label_studio", "sentiment_export.json").read_bytes()
#: the documented keys (guide/task_format): of a task, an annotation and a result entry
TASK_KEYS = {"id", "data", "annotations", "predictions"}
ANNOTATION_KEYS = {"id", "result", "completed_by", "lead_time", "was_cancelled", "ground_truth", "task"}
ANNOTATION_KEYS |= {"created_at", "updated_at"}
RESULT_KEYS = {"id", "from_name", "to_name", "type", "value"}

ANSWERS = [  # what each of the two annotators answers on every item
    {"sentiment": "positive", "stars": "4", "price": "12.5", "price-keep": "on", "note": "fine"},
    {"sentiment": "negative", "stars": "2", "price": "0", "price-keep": "on", "note": ""},
]


def spans_of(payload: dict[str, Any], annotator: int) -> list[dict[str, Any]]:
    """The first word marked as a PRODUCT by the first annotator; nothing by the second."""
    if annotator:
        return []
    end = payload["text"].index(" ")
    return [{"start": 0, "end": end, "label": "PRODUCT"}]


def annotate(project: Project, *, annotators: int) -> None:
    """Every item by `annotators` people through an invite link, each page through its real form."""
    kind = kind_of(project)
    batch = batch_create(
        project=project, name="b1", items_per_unit=project.items.count(), assignments_per_unit=annotators
    )
    invite = invite_link_create(batch=batch)
    for index in range(annotators):
        assignment = assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch)
        for response in assignment.responses.select_related("item").order_by("position"):
            payload = response.item.payload
            while (slug := next_page_slug(kind, payload, response.answers)) is not None:
                data = {**ANSWERS[index], "product": json.dumps(spans_of(payload, index))}
                form = kind.page(payload, slug, response.answers).form_class(
                    data, payload=payload, answers=response.answers
                )
                assert form.is_valid(), (slug, form.errors)
                save_answer(response.pk, slug, form.answer(), shown_at=timezone.now() - timedelta(seconds=5))
                response.refresh_from_db()


def new_project(name: str = "From Label Studio") -> Project:
    return project_create(name=name, team=TeamFactory(), task_file=TASK_FILE)


def export_tasks(project: Project, fmt: str | None = "json") -> list[dict[str, Any]]:
    export = export_open(project=project, dataset="label_studio", fmt=fmt)
    assert export.filename.endswith(".json") and export.content_type.startswith("application/json")
    return json.loads(b"".join(export.chunks))


@pytest.fixture
def annotated() -> Project:
    """The made-up Label Studio export imported as items, then annotated here by two people."""
    project = new_project()
    report = items_import(project=project, data=LS_EXPORT, filename="sentiment_export.json")
    assert report.created == 3
    annotate(project, annotators=2)
    return project


def email_of(annotator: Annotator) -> str:
    if annotator.channel == "label_studio":
        return f"label-studio-{annotator.external_id}@annotators.invalid"
    return f"annotator-{annotator.pk}@annotators.invalid"


def by_field(annotation: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for entry in annotation["result"]:
        found.setdefault(entry["from_name"], []).append(entry)
    return found


def test_every_annotation_is_a_task_annotation_with_its_typed_values(annotated):
    tasks = export_tasks(annotated)
    items = {item.pk: item for item in Item.objects.filter(project=annotated)}
    assert [task["id"] for task in tasks] == sorted(items)
    responses = Response.objects.filter(item__project=annotated).select_related("assignment")
    seconds = {r.pk: r for r in responses}
    # the Label Studio file's own annotations came in too (tests/quality/test_label_studio_annotations.py)
    imported = set(Annotator.objects.filter(project=annotated, channel="label_studio").values_list("pk", flat=True))
    assert len(imported) == 1
    for task in tasks:
        assert set(task) >= TASK_KEYS and task["predictions"] == []
        item = items[task["id"]]
        assert task["data"] == item.payload  # the item as imported, keys as they are
        # never a number (Label Studio would credit its user of that number): a pseudonymous e-mail
        annotators = {a["completed_by"]["email"] for a in task["annotations"]}
        assert annotators == {email_of(r.assignment.annotator) for r in responses if r.item_id == item.pk}
        mails = {email_of(a) for a in Annotator.objects.filter(pk__in=imported)}
        here = [a for a in task["annotations"] if a["completed_by"]["email"] not in mails]
        assert len(here) == 2 and len(task["annotations"]) == 2 + (item.external_id != "r-3")
        for annotation in here:
            assert set(annotation) >= ANNOTATION_KEYS and annotation["task"] == task["id"]
            assert annotation["was_cancelled"] is False and isinstance(annotation["lead_time"], int | float)
            assert annotation["lead_time"] == pytest.approx(
                sum(t.get("seconds") or 0 for t in seconds[annotation["id"]].timings.values())
            )
            for entry in annotation["result"]:
                assert set(entry) == RESULT_KEYS and isinstance(entry["id"], str)
            index = 0 if by_field(annotation)["sentiment"][0]["value"]["choices"] == ["positive"] else 1
            check_result(by_field(annotation), item.payload, index)


def check_result(result: dict[str, list[dict[str, Any]]], payload: dict[str, Any], index: int) -> None:
    """Each label question's answer as Label Studio types it (the value models of its tags)."""
    answers = ANSWERS[index]
    assert result["sentiment"] == [
        {**result["sentiment"][0], "to_name": "text", "type": "choices", "value": {"choices": [answers["sentiment"]]}}
    ]
    (stars,) = result["stars"]
    assert stars["type"] == "rating" and stars["value"] == {"rating": int(answers["stars"])}
    (price,) = result["price"]
    assert price["type"] == "number" and price["value"] == {"number": float(answers["price"])}
    if answers["note"]:
        (note,) = result["note"]
        assert note["type"] == "textarea" and note["value"] == {"text": [answers["note"]]}
    else:
        assert "note" not in result  # nothing written, nothing to say
    spans = spans_of(payload, index)
    assert len(result.get("product", [])) == len(spans)
    for entry, span in zip(result.get("product", []), spans):
        text = payload["text"][span["start"] : span["end"]]
        assert entry["type"] == "labels" and entry["to_name"] == "text"
        assert entry["value"] == {"start": span["start"], "end": span["end"], "text": text, "labels": ["PRODUCT"]}


def test_the_tasks_import_into_a_new_project_as_the_same_items(annotated):
    """Label Studio -> here -> annotated -> Label Studio's JSON -> a new project: the same items."""
    body = json.dumps(export_tasks(annotated)).encode()
    again = new_project("Round trip")
    assert items_import(project=again, data=body, filename="tasks.json").created == 3
    before = dict(Item.objects.filter(project=annotated).values_list("external_id", "payload"))
    after = dict(Item.objects.filter(project=again).values_list("external_id", "payload"))
    assert after == before and sorted(before) == ["r-1", "r-2", "r-3"]


def test_a_task_without_annotations_is_a_task_with_none():
    """Only the Label Studio file's own annotations: r-1 and r-2 have one each, r-3 none."""
    project = new_project()
    items_import(project=project, data=LS_EXPORT, filename="sentiment_export.json")
    tasks = export_tasks(project, fmt=None)  # json is the dataset's own format
    assert [len(task["annotations"]) for task in tasks] == [1, 1, 0]


def test_an_empty_project_is_an_empty_array():
    assert export_tasks(new_project()) == []


def test_label_studio_is_written_as_json_only_and_the_tables_not_as_json(annotated):
    with pytest.raises(UnknownExport, match="label_studio dataset is written as json, not csv"):
        export_open(project=annotated, dataset="label_studio", fmt="csv")
    with pytest.raises(UnknownExport, match="raw dataset is written as csv or tsv or jsonl, not json"):
        export_open(project=annotated, dataset="raw", fmt="json")


def test_the_command_writes_the_json_file(annotated, tmp_path: Path):
    target = tmp_path / "tasks.json"
    call_command("export", annotated.pk, "--dataset", "label_studio", "-o", str(target), stderr=io.StringIO())
    tasks = json.loads(target.read_text(encoding="utf-8"))
    assert len(tasks) == 3 and sum(len(task["annotations"]) for task in tasks) == 6 + 2  # 2 from Label Studio
    with pytest.raises(CommandError, match="written as json"):
        call_command("export", annotated.pk, "--dataset", "label_studio", "--format", "tsv", stdout=io.StringIO())


def test_the_report_offers_one_json_button_and_the_api_serves_it(annotated, admin_client):
    page = admin_client.get(reverse("quality:report", args=[annotated.pk])).content.decode()
    label_studio = reverse("quality:export", args=[annotated.pk, "label_studio", "json"])
    assert f'href="{label_studio}"' in page
    assert reverse("quality:export", args=[annotated.pk, "label_studio", "csv"]) not in page
    download = admin_client.get(label_studio)
    assert download.status_code == 200 and download["Content-Type"].startswith("application/json")
    assert len(json.loads(b"".join(download.streaming_content))) == 3
    api = admin_client.get(f"/api/projects/{annotated.pk}/export/", {"dataset": "label_studio"})
    assert api.status_code == 200, api.content
    assert len(json.loads(b"".join(api.streaming_content))) == 3


def test_a_built_in_kind_exports_its_label_fields_by_level():
    """A built-in kind's nominal labels are choices (values as texts); none of its results is
    anything but the generic forms."""
    from tests.quality.export_projects import build_recam

    project = build_recam()
    fields = {f.name: f.level for f in kind_of(project).label_fields()}
    tasks = export_tasks(project)
    results = [e for t in tasks for a in t["annotations"] for e in a["result"]]
    assert results, "the ReCAM project has completed annotations"
    for entry in results:
        assert entry["from_name"] in fields
        if fields[entry["from_name"]] in ("nominal", "ordinal", "set"):
            assert entry["type"] == "choices" and all(isinstance(c, str) for c in entry["value"]["choices"])
        else:
            assert entry["type"] == "number" and isinstance(entry["value"]["number"], int | float)


def test_the_export_imported_into_its_own_project_adds_nothing(annotated):
    """Its annotators come back as themselves (`annotator-<number>@annotators.invalid`, and a Label
    Studio user's pseudonym): no annotation is copied onto the items they have already."""
    before = Response.objects.filter(item__project=annotated).count()
    report = items_import(project=annotated, data=json.dumps(export_tasks(annotated)).encode(), filename="again.json")
    assert (report.created, report.annotations) == (0, 0)
    assert Response.objects.filter(item__project=annotated).count() == before
