"""A Label Studio export imported WITH its labels: each annotation not cancelled becomes a
completed annotation of one annotator per Label Studio user (`completed_by`), in a closed batch,
so exports, quality runs and agreement see it. The round trip: a text classification project's
export (two Label Studio annotators, tests/fixtures/label_studio/classification_export.json,
written after Label Studio's documented export format) -> imported here -> annotated more here
-> exported as Label Studio's JSON -> imported into a fresh project: the same labels per item and
annotator, none lost."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.utils import timezone

from annotation.kinds import kind_of
from annotation.models import Annotator, Batch, Project, Response
from annotation.services.assignments import (
    InviteClosed,
    NoWorkLeft,
    annotator_join_via_invite,
    assignment_next,
)
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import export_open
from quality.models import QualityRun
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

pytestmark = pytest.mark.django_db

TASK_FILE = data_file("label_studio", "classification_task.yaml").read_text(encoding="utf-8")
LS_EXPORT = data_file("label_studio", "classification_export.json").read_bytes()
#: the file's annotations not cancelled, by (task ref, completed_by), as the page stores them
FROM_LABEL_STUDIO = {
    ("c-1", "3"): {"sentiment": "Positive", "topics": ["Quality"]},
    ("c-1", "8"): {"sentiment": "Positive", "topics": ["Quality", "Price"]},
    ("c-2", "3"): {"sentiment": "Negative", "topics": ["Delivery"]},
    ("c-3", "8"): {"sentiment": "Neutral", "topics": None},
}
#: what the platform's own annotator answers on every item
HERE = {"sentiment": "Neutral", "topics": ["Price"]}


def new_project(name: str) -> Project:
    return project_create(name=name, team=TeamFactory(), task_file=TASK_FILE)


def labels(project: Project) -> dict[tuple[str, Annotator], dict[str, Any]]:
    """(item id, annotator) -> the stored answers of each completed annotation."""
    found = {}
    responses = Response.objects.filter(item__project=project, completed_at__isnull=False)
    for r in responses.select_related("item", "assignment__annotator"):
        assert (r.item.external_id, r.assignment.annotator) not in found
        found[r.item.external_id, r.assignment.annotator] = r.answers["classify"]
    return found


def from_label_studio(project: Project) -> dict[tuple[str, str], dict[str, Any]]:
    """(item id, the annotator's id in Label Studio) -> answers, of the imported annotations."""
    return {
        (item, a.external_id): answer for (item, a), answer in labels(project).items() if a.channel == "label_studio"
    }


def annotate_here(project: Project) -> None:
    """Every item by one person here, through an invite link and the page's real form."""
    kind = kind_of(project)
    batch = batch_create(project=project, name="here", items_per_unit=project.items.count(), assignments_per_unit=1)
    assignment = assignment_next(
        annotator=annotator_join_via_invite(invite=invite_link_create(batch=batch)), batch=batch
    )
    for response in assignment.responses.select_related("item").order_by("position"):
        payload = response.item.payload
        while (slug := next_page_slug(kind, payload, response.answers)) is not None:
            form = kind.page(payload, slug, response.answers).form_class(
                HERE, payload=payload, answers=response.answers
            )
            assert form.is_valid(), form.errors
            save_answer(response.pk, slug, form.answer(), shown_at=timezone.now())
            response.refresh_from_db()


def export_tasks(project: Project) -> list[dict[str, Any]]:
    return json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks))


def only(rows: Iterable[Any]) -> Any:
    (row,) = rows
    return row


def test_the_annotations_come_in_as_completed_annotations_of_their_annotators():
    project = new_project("From Label Studio")
    report = items_import(project=project, data=LS_EXPORT, filename="classification_export.json")
    assert (report.created, report.annotations, report.skipped_annotations) == (4, 4, 1)  # 9004 was cancelled
    assert from_label_studio(project) == FROM_LABEL_STUDIO and len(labels(project)) == 4
    people = Annotator.objects.filter(project=project)
    assert sorted(people.values_list("channel", "external_id")) == [("label_studio", "3"), ("label_studio", "8")]
    batch = only(Batch.objects.filter(project=project))
    assert (batch.name, batch.status) == ("Imported from Label Studio", Batch.Status.CLOSED)
    first = Response.objects.get(item__external_id="c-1", assignment__annotator__external_id="8")
    assert first.completed_at == datetime(2026, 6, 2, 16, 40, 12, 400000, tzinfo=UTC)
    assert first.timings["classify"]["seconds"] == 11.5  # lead_time: the time on the page
    assert first.assignment.status == "submitted" and first.assignment.confirmed


def test_a_closed_import_batch_hands_out_nothing():
    project = new_project("From Label Studio")
    items_import(project=project, data=LS_EXPORT, filename="classification_export.json")
    batch = Batch.objects.get(project=project)
    with pytest.raises(InviteClosed):
        annotator_join_via_invite(invite=invite_link_create(batch=batch))
    imported = Annotator.objects.filter(project=project).first()
    assert imported is not None
    with pytest.raises(NoWorkLeft, match="closed"):
        assignment_next(annotator=imported, batch=batch)


def test_a_quality_run_counts_the_imported_annotations():
    project = new_project("From Label Studio")
    items_import(project=project, data=LS_EXPORT, filename="classification_export.json")
    run = quality_run_create(project=project)
    assert run.status == QualityRun.Status.DONE, run.error
    decided = {d.annotator.external_id for d in run.annotator_decisions.select_related("annotator")}
    assert decided == {"3", "8"}
    assert run.response_decisions.count() == 4


def test_the_labels_round_trip_per_item_and_annotator():
    """Label Studio -> here (+ one annotator here) -> Label Studio's JSON -> a fresh project."""
    first = new_project("From Label Studio")
    items_import(project=first, data=LS_EXPORT, filename="classification_export.json")
    annotate_here(first)
    before = labels(first)
    assert len(before) == 4 + 4 and from_label_studio(first) == FROM_LABEL_STUDIO

    tasks = export_tasks(first)
    lead = {(t["data"]["ref"], a["completed_by"]["email"]): a["lead_time"] for t in tasks for a in t["annotations"]}
    # Label Studio's user 3 is written as a pseudonymous e-mail of that number, never as the number
    assert lead["c-1", "label-studio-3@annotators.invalid"] == 6.25

    fresh = new_project("Round trip")
    report = items_import(project=fresh, data=json.dumps(tasks).encode(), filename="tasks.json")
    assert (report.created, report.annotations, report.skipped_annotations) == (4, 8, 0)
    # each annotator of the first project is one of the fresh one, named by the e-mail it was exported as
    # (Label Studio's user 3, exported as label-studio-3@annotators.invalid, is user 3 again)
    expected = {
        (item, a.external_id if a.channel == "label_studio" else f"annotator-{a.pk}@annotators.invalid"): answer
        for (item, a), answer in before.items()
    }
    assert from_label_studio(fresh) == expected
    assert len(labels(fresh)) == 8
