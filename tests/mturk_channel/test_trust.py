"""Work entered under MTurk ids nobody confirmed is held apart (issue 25, item 3).

Before: with a HIT id and a worker's id anyone could enter `/mturk/` under made-up assignment
ids; sync flagged that work as unknown to MTurk, but the quality run still counted it in the
worker's accuracy, dropped the worker, and review then rejected the worker's real, verified
assignment. Now such work is left out of every judgement until MTurk confirms it at sync.
"""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, PublishJob
from annotation.services.assignments import assignments_release_abandoned
from annotation.services.publish import publish_job_run
from annotation.services.sync import batch_sync
from quality.exports.datasets import clean, raw
from quality.models import AnnotatorDecision
from quality.services.review import review_apply
from quality.services.runs import quality_run_create
from tests.quality.helpers import complete_answers

from .conftest import BASE_URL, do_work, local_assignment, mturk_batch

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mturk_settings")]
WORKER = "A1REALWORKER"
FEEDBACK = "Your answers disagreed with the answer key; please read the instructions again."


def entry(server, unit, assignment_id: str, worker_id: str = WORKER) -> str:
    query = {
        "assignmentId": assignment_id,
        "hitId": unit.channel_ref,
        "workerId": worker_id,
        "turkSubmitTo": server.url,
    }
    return reverse("surveys:mturk") + "?" + urlencode(query)


def forge(server, unit, assignment_id: str) -> Assignment:
    """Somebody who knows the HIT id and the worker's id opens our page under a made-up
    assignment id and answers every item wrong."""
    opened = Client().get(entry(server, unit, assignment_id))
    assert opened.status_code == 302
    assignment = Assignment.objects.get(channel_assignment_id=assignment_id)
    label = assignment.responses.first().item.payload["label"]
    assignment.responses.update(answers=complete_answers((label + 1) % 5), completed_at=timezone.now())
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return assignment


@pytest.fixture
def forged(server):
    """A real worker's verified work on unit 0, and two forged entries under their id on units 1, 2."""
    batch = mturk_batch(units=3, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=3))
    u0, u1, u2 = batch.units.order_by("position")
    real = do_work(server, u0, WORKER)
    label = real.assignment.responses.first().item.payload["label"]
    real.assignment.responses.update(answers=complete_answers(label))
    fakes = [forge(server, u1, "FORGED0000000000000000000000A1"), forge(server, u2, "FORGED0000000000000000000000A2")]
    return batch, real, fakes


def test_a_forged_entry_is_held_apart_until_sync_and_sync_leaves_it_so(forged):
    batch, real, fakes = forged
    assert not any(Assignment.objects.get(pk=f.pk).confirmed for f in fakes)  # held apart from entry
    batch_sync(batch=batch)
    assert Assignment.objects.get(pk=real.assignment.pk).confirmed  # MTurk knows it: confirmed
    for fake in fakes:
        fake.refresh_from_db()
        assert not fake.confirmed and "does not know this work" in fake.unconfirmed_reason


def test_forged_work_changes_nothing_about_the_workers_decision_and_review_approves_the_real_work(forged, server):
    batch, real, _fakes = forged
    batch_sync(batch=batch)
    run = quality_run_create(project=batch.project)
    decision = AnnotatorDecision.objects.get(run=run, annotator=real.assignment.annotator)
    assert decision.keep and decision.metrics["n_responses"] == 1  # the forged items do not count
    report = review_apply(batch=batch, reject_feedback=FEEDBACK)
    assert (report.approved, report.rejected) == (1, 0)
    assert local_assignment(server, real.mturk_id)["status"] == "Approved"
    assert Assignment.objects.get(pk=real.assignment.pk).status == Assignment.Status.APPROVED


def test_the_raw_export_marks_unconfirmed_rows_and_the_clean_export_leaves_them_out(forged):
    batch, real, fakes = forged
    batch_sync(batch=batch)
    quality_run_create(project=batch.project)
    raw_rows = {row["assignment_id"]: row["confirmed"] for row in raw(batch.project).rows()}
    assert raw_rows == {real.assignment.pk: True, fakes[0].pk: False, fakes[1].pk: False}
    assert "confirmed" in raw(batch.project).columns()
    assert {row["assignment_id"] for row in clean(batch.project).rows()} == {real.assignment.pk}


@pytest.mark.parametrize(
    "assignment_id, worker_id, bad",
    [
        ("3ABCDEFGHIJKLMNOPQRSTUVWXYZ012 ", WORKER, "assignmentId"),  # a trailing space
        ("3abcdefghijklmnopqrstuvwxyz012", WORKER, "assignmentId"),  # lower case
        ("3ABCDEFGHIJKLMNOPQRSTUVWXYZ012", "a1realworker", "workerId"),
        ("3ABCDEFGHIJKLMNOPQRSTUVWXYZ012", "B1REALWORKER", "workerId"),  # worker ids start with A
    ],
)
def test_ids_not_in_mturks_form_are_refused_and_start_no_work(server, assignment_id, worker_id, bad):
    batch = mturk_batch(units=1, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    page = Client().get(entry(server, batch.units.get(), assignment_id, worker_id))
    assert page.status_code == 400
    assert bad in page.content.decode() and "Mechanical Turk" in page.content.decode()
    assert not Assignment.objects.exists()


def test_unconfirmed_mturk_work_in_progress_keeps_going_past_the_unconfirmed_minutes(server, settings):
    """MTurk knows an assignment only once it is submitted and hands out its places itself: work
    in progress is unconfirmed for as long as it takes, and only the batch's idle rule releases it."""
    settings.UNCONFIRMED_RELEASE_MINUTES = 5
    batch = mturk_batch(units=1, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    assert Client().get(entry(server, batch.units.get(), "3ABCDEFGHIJKLMNOPQRSTUVWXYZ012")).status_code == 302
    working = Assignment.objects.get()
    assert not working.confirmed and working.status == Assignment.Status.ACTIVE
    Assignment.objects.filter(pk=working.pk).update(last_activity_at=working.started_at + timedelta(minutes=30))
    assert assignments_release_abandoned(batch=batch, now=working.started_at + timedelta(minutes=31)) == 0


def test_the_admin_shows_work_held_apart_with_its_reason(forged, admin_client):
    batch, _real, fakes = forged
    batch_sync(batch=batch)
    held = admin_client.get(reverse("admin:annotation_assignment_change", args=[fakes[0].pk])).content.decode()
    assert "the channel does not know this work" in held
    listed = admin_client.get(reverse("admin:annotation_assignment_changelist") + "?confirmed__exact=0")
    assert [a.pk for a in listed.context["cl"].result_list] == [f.pk for f in fakes]


def test_unconfirmed_work_opens_no_adjudication_until_sync_confirms_it(server, django_capture_on_commit_callbacks):
    """A forged second annotation would otherwise put its values before the adjudicator (and into
    the final labels as 'agreed'); once MTurk confirms real work at sync, the item is checked."""
    from annotation.models import AdjudicationTask, FinalLabel
    from annotation.services.adjudication import adjudication_open_for_item, adjudication_setup_set
    from annotation.services.batches import batch_create
    from annotation.services.imports import items_import
    from tests.factories import ProjectFactory
    from tests.gcrc.test_export import FIRST, RECORD, SECOND

    project = ProjectFactory(kind="gcrc", language="zh-hans")
    items_import(project=project, data=json.dumps({"data": [RECORD]}, ensure_ascii=False).encode())
    batch = batch_create(
        project=project, name="experts", items_per_unit=1, assignments_per_unit=2, channel="mturk", channel_settings={}
    )
    adjudication_setup_set(batch=batch)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    unit = batch.units.get()
    works = [do_work(server, unit, worker) for worker in ("A1FIRSTEXPERT", "A2SECONDEXPERT")]
    for work, answers in zip(works, (FIRST, SECOND), strict=True):
        work.assignment.responses.update(answers=answers)
    item = unit.unit_items.get().item
    assert adjudication_open_for_item(item=item, batch=batch) is None  # neither is confirmed yet
    assert not FinalLabel.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        batch_sync(batch=batch)
    task = AdjudicationTask.objects.get(item=item)
    assert task.fields_in_dispute == ["a_error", "d_evidence"]
    assert {task.first_response_id, task.second_response_id} == {w.assignment.responses.get().pk for w in works}


def test_forged_entries_are_not_among_the_studys_engagement_events(forged):
    from quality.selectors import assignment_events

    batch, _real, _fakes = forged
    batch_sync(batch=batch)
    assert len(assignment_events(batch.project)) == 1  # the real worker's assignment alone
