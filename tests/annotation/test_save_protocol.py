"""The one save path: a compare-and-set write on the response's version. A save over a stale
read reads again and decides again, so it gives the same answer as if it had read last."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.kinds import get_kind
from annotation.models import Assignment, Response
from annotation.selectors.work import response_for_save
from annotation.services.assignments import assignment_next, assignments_release_abandoned, assignments_set_status
from annotation.services.batches import batch_create
from annotation.services.responses import (
    ACTIVITY_RESOLUTION,
    ProtocolError,
    assignment_submit_if_complete,
    response_save_page,
)
from tests.factories import RECAM_PAYLOAD, AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db

PRE = {"choice": RECAM_PAYLOAD["label"]}
ANSWERS = {
    "pre": PRE,
    "post": PRE,
    "second": {"choice": None},
    "relation": {"relation": "summarize"},
    "difficulty": {"difficulty": "easy"},
    "support_span": {"text": "The cat", "start": 0, "end": 7},
    "summary_span": {"text": "The cat", "start": 0, "end": 7},
}
PAGES = ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"]


@pytest.fixture
def work():
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    annotator = AnnotatorFactory(project=project, batch=batch)
    assignment = assignment_next(annotator=annotator, batch=batch)
    response = Response.objects.filter(assignment=assignment).order_by("position").first()
    return annotator, assignment, response


def read(annotator, response):
    """The response as the annotator's save reads it."""
    return response_for_save(response.pk, access_key=annotator.access_key)


def save(read_response, page, answer):
    return response_save_page(response=read_response, kind=get_kind("recam"), page_slug=page, answer=answer)


def verbs(queries):
    return [q["sql"].split()[0] for q in queries.captured_queries]


def test_the_page_order_is_fixed_in_pages():
    from annotation.kinds import get_kind

    assert [p.slug for p in get_kind("recam").pages(RECAM_PAYLOAD, {})] == PAGES


def test_the_next_page_is_one_update(work):
    annotator, assignment, response = work
    seen = read(annotator, response)
    with CaptureQueriesContext(connection) as queries:
        result = save(seen, "pre", PRE)
    assert verbs(queries) == ["UPDATE"]
    assert result.changed and not result.item_completed
    fresh = Response.objects.get(pk=response.pk)
    assert fresh.answers == {"pre": PRE} and set(fresh.timings) == {"pre"} and fresh.version == 1


def test_the_assignments_activity_is_stored_once_it_is_older_than_the_resolution(work):
    annotator, assignment, response = work
    long_ago = timezone.now() - ACTIVITY_RESOLUTION - timedelta(seconds=1)
    Assignment.objects.filter(pk=assignment.pk).update(last_activity_at=long_ago)
    seen = read(annotator, response)
    with CaptureQueriesContext(connection) as queries:
        save(seen, "pre", PRE)
    assert verbs(queries) == ["UPDATE", "UPDATE"]
    touched = Assignment.objects.get(pk=assignment.pk).last_activity_at
    assert touched > long_ago
    save(read(annotator, response), "post", PRE)  # recent: not again
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at == touched


def test_a_double_submit_over_a_stale_read_is_an_idempotent_replay(work):
    annotator, assignment, response = work
    stale = read(annotator, response)
    assert save(read(annotator, response), "pre", PRE).changed
    timings = Response.objects.get(pk=response.pk).timings
    result = save(stale, "pre", PRE)  # read before the first wrote: its write is refused, it reads again
    assert not result.changed
    fresh = Response.objects.get(pk=response.pk)
    assert fresh.timings == timings and fresh.version == 1


def test_two_tabs_answering_the_next_page_differently_store_only_the_first(work):
    annotator, assignment, response = work
    tab_one, tab_two = read(annotator, response), read(annotator, response)
    save(tab_one, "pre", PRE)
    other = {"choice": (RECAM_PAYLOAD["label"] + 1) % 5}
    with pytest.raises(ProtocolError):  # the pre-reading answer locks
        save(tab_two, "pre", other)
    assert Response.objects.get(pk=response.pk).answers == {"pre": PRE}


def test_a_stale_read_cannot_skip_a_page(work):
    annotator, assignment, response = work
    stale = read(annotator, response)
    save(read(annotator, response), "pre", PRE)
    save(stale, "post", PRE)  # valid after the re-read: "post" is now the next page
    with pytest.raises(ProtocolError):
        save(read(annotator, response), "relation", ANSWERS["relation"])  # "second" comes first
    assert set(Response.objects.get(pk=response.pk).answers) == {"pre", "post"}


@pytest.mark.parametrize("status", [Assignment.Status.APPROVED, Assignment.Status.REJECTED])
def test_an_assignment_reviewed_after_the_read_is_not_written(work, status):
    annotator, assignment, response = work
    seen = read(annotator, response)
    assignments_set_status(assignments=Assignment.objects.filter(pk=assignment.pk), status=status)
    with pytest.raises(ProtocolError):
        save(seen, "pre", PRE)
    assert Response.objects.get(pk=response.pk).answers == {}


def test_a_status_change_moves_the_versions_so_the_save_needs_no_condition_on_the_assignment(work):
    annotator, assignment, response = work
    before = Response.objects.get(pk=response.pk).version
    moved = assignments_set_status(
        assignments=Assignment.objects.filter(pk=assignment.pk, status="active"), status=Assignment.Status.APPROVED
    )
    assert moved == 1 and Response.objects.get(pk=response.pk).version == before + 1
    again = assignments_set_status(
        assignments=Assignment.objects.filter(pk=assignment.pk, status="active"), status=Assignment.Status.REJECTED
    )  # checked again: no longer active
    assert again == 0 and Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.APPROVED
    seen = read(annotator, response)
    with CaptureQueriesContext(connection) as queries:
        with pytest.raises(ProtocolError):
            save(seen, "pre", PRE)
    assert verbs(queries) == ["SELECT"]  # refused on what was read; the re-read agrees


def test_an_assignment_released_after_the_read_is_reclaimed(work):
    annotator, assignment, response = work
    seen = read(annotator, response)
    idle = timezone.now() + timedelta(minutes=assignment.unit.batch.release_after_minutes + 1)
    assert assignments_release_abandoned(batch=assignment.unit.batch, now=idle) == 1
    assert save(seen, "pre", PRE).changed
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    assert Response.objects.get(pk=response.pk).answers == {"pre": PRE}


def test_nobody_reads_another_annotators_response(work):
    annotator, assignment, response = work
    stranger = AnnotatorFactory(project=annotator.project)
    assert response_for_save(response.pk, access_key=stranger.access_key) is None
    assert response_for_save(response.pk, access_key=annotator.access_key).pk == response.pk


def test_completing_the_units_last_item_submits_the_assignment(work):
    annotator, assignment, response = work
    second = Response.objects.filter(assignment=assignment).order_by("position").last()
    for current, statements in ((response, ["UPDATE", "SELECT"]), (second, ["UPDATE", "UPDATE", "SELECT"])):
        for page in PAGES[:-1]:
            assert save(read(annotator, current), page, ANSWERS[page]).changed
        seen = read(annotator, current)
        with CaptureQueriesContext(connection) as queries:
            result = save(seen, PAGES[-1], ANSWERS[PAGES[-1]])
        # the answer, after the unit's last item the assignment, and what the batch does next
        # (adjudicates, adaptive: one SELECT, `completion_queue`)
        assert verbs(queries) == statements
        assert result.item_completed and result.assignment_submitted == (current == second)
    assert result.assignment_submitted
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert fresh.status == Assignment.Status.SUBMITTED and fresh.submitted_at is not None


def test_submit_if_complete_submits_only_an_active_assignment_with_every_item_complete(work):
    annotator, assignment, response = work
    responses = Response.objects.filter(assignment=assignment)
    assert assignment_submit_if_complete(assignment) is False  # nothing answered yet
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    responses.filter(pk=response.pk).update(completed_at=timezone.now())
    assert assignment_submit_if_complete(assignment) is False  # one item left
    responses.update(completed_at=timezone.now())  # as if a save died before submitting
    now = timezone.now()
    assert assignment_submit_if_complete(assignment, now=now) is True
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert (fresh.status, fresh.submitted_at, fresh.last_activity_at) == (Assignment.Status.SUBMITTED, now, now)
    later = now + timedelta(minutes=5)
    assert assignment_submit_if_complete(fresh, now=later) is True  # again: no change but the activity
    assert Assignment.objects.get(pk=assignment.pk).submitted_at == now


@pytest.mark.parametrize("status", [Assignment.Status.RELEASED, Assignment.Status.APPROVED, Assignment.Status.REJECTED])
def test_submit_if_complete_leaves_other_statuses(work, status):
    annotator, assignment, response = work
    Response.objects.filter(assignment=assignment).update(completed_at=timezone.now())
    Assignment.objects.filter(pk=assignment.pk).update(status=status)
    assignment.refresh_from_db()
    assert assignment_submit_if_complete(assignment) is False
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert fresh.status == status and fresh.submitted_at is None
