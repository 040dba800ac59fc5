"""A save with the response the caller read (`seen`) writes only if nothing changed since;
otherwise it goes the locked way and gives the same answer as if it had always done so."""
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django.test.utils import CaptureQueriesContext

from annotation.annotator_reads import annotator_with_response
from annotation.kinds import get_kind
from annotation.models import Assignment, Response
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from annotation.services.responses import (
    ACTIVITY_RESOLUTION,
    ProtocolError,
    assignment_submit_if_complete,
    response_save_page,
)
from annotation.sqlrows import update_row
from tests.factories import RECAM_PAYLOAD, AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db

PRE = {"choice": RECAM_PAYLOAD["label"]}


@pytest.fixture
def work():
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    annotator = AnnotatorFactory(project=project, batch=batch)
    assignment = assignment_next(annotator=annotator, batch=batch)
    response = Response.objects.filter(assignment=assignment).order_by("position").first()
    return annotator, assignment, response


def seen_now(annotator, response):
    return annotator_with_response(annotator.access_key, response.pk)[1]


def save(annotator, response, page, answer, seen):
    return response_save_page(response_id=response.pk, annotator_id=annotator.pk, page_slug=page,
                              answer=answer, seen=seen)


def statements(queries):
    """What each query did; on PostgreSQL they run as prepared statements (annotation.sqlrows:
    `PREPARE <name> AS <sql>; EXECUTE ...` the first time, `EXECUTE <name>` after; UPDATEs are
    named sqlrows_upd<hash>_<n>)."""
    kinds = []
    for query in queries.captured_queries:
        words = query["sql"].split()
        if words[0] == "PREPARE":
            kinds.append(words[3])
        elif words[0] == "EXECUTE":
            updates = words[1].startswith(("sqlrows_upd", "sqlrows_submit"))
            kinds.append("UPDATE" if updates else "SELECT")
        else:
            kinds.append(words[0])
    return kinds


def test_the_next_page_is_one_update_statement(work):
    annotator, assignment, response = work
    seen = seen_now(annotator, response)
    with CaptureQueriesContext(connection) as queries:
        result = save(annotator, response, "pre", PRE, seen)
    assert statements(queries) == ["UPDATE"]  # no transaction around it: it is one statement
    assert result.changed and not result.item_completed
    fresh = Response.objects.get(pk=response.pk)
    assert fresh.answers == {"pre": PRE} and set(fresh.timings) == {"pre"}
    assert seen.answers == {}  # the caller's object is not changed


def test_the_assignments_activity_is_stored_once_it_is_older_than_the_resolution(work):
    annotator, assignment, response = work
    long_ago = timezone.now() - ACTIVITY_RESOLUTION - timedelta(seconds=1)
    update_row(Assignment, assignment.pk, {"last_activity_at": long_ago})
    seen = seen_now(annotator, response)
    with CaptureQueriesContext(connection) as queries:
        save(annotator, response, "pre", PRE, seen)
    assert statements(queries) == ["UPDATE", "UPDATE"]  # each its own transaction
    touched = Assignment.objects.get(pk=assignment.pk).last_activity_at
    assert touched > long_ago
    save(annotator, response, "post", PRE, seen_now(annotator, response))  # recent: not again
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at == touched


def test_a_stale_read_of_the_same_page_is_an_idempotent_replay(work):
    annotator, assignment, response = work
    stale = seen_now(annotator, response)
    save(annotator, response, "pre", PRE, seen_now(annotator, response))
    timings = Response.objects.get(pk=response.pk).timings
    result = save(annotator, response, "pre", PRE, stale)  # a double submit that read before the first wrote
    assert not result.changed
    assert Response.objects.get(pk=response.pk).timings == timings


def test_a_stale_read_cannot_change_a_locked_answer(work):
    annotator, assignment, response = work
    stale = seen_now(annotator, response)
    save(annotator, response, "pre", PRE, seen_now(annotator, response))
    other = {"choice": (RECAM_PAYLOAD["label"] + 1) % 5}
    with pytest.raises(ProtocolError):
        save(annotator, response, "pre", other, stale)
    assert Response.objects.get(pk=response.pk).answers == {"pre": PRE}


@pytest.mark.parametrize("status", [Assignment.Status.APPROVED, Assignment.Status.REJECTED])
def test_an_assignment_reviewed_after_the_read_is_not_written(work, status):
    annotator, assignment, response = work
    seen = seen_now(annotator, response)
    update_row(Assignment, assignment.pk, {"status": status})
    with pytest.raises(ProtocolError):
        save(annotator, response, "pre", PRE, seen)
    assert Response.objects.get(pk=response.pk).answers == {}


def test_an_assignment_released_after_the_read_is_reclaimed_by_the_locked_way(work):
    annotator, assignment, response = work
    seen = seen_now(annotator, response)
    update_row(Assignment, assignment.pk, {"status": Assignment.Status.RELEASED})
    assert save(annotator, response, "pre", PRE, seen).changed
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    assert Response.objects.get(pk=response.pk).answers == {"pre": PRE}


def test_somebody_elses_response_as_seen_is_ignored(work):
    annotator, assignment, response = work
    stranger = AnnotatorFactory(project=annotator.project)
    seen = seen_now(annotator, response)
    with pytest.raises(ProtocolError):
        response_save_page(response_id=response.pk, annotator_id=stranger.pk, page_slug="pre", answer=PRE, seen=seen)
    assert Response.objects.get(pk=response.pk).answers == {}


def test_the_last_page_of_the_unit_submits_the_assignment(work):
    annotator, assignment, response = work
    pages = [p.slug for p in get_kind("recam").pages(RECAM_PAYLOAD)]
    answers = {"pre": PRE, "post": PRE, "second": {"choice": None}, "relation": {"relation": "summarize"},
               "difficulty": {"difficulty": "easy"}, "support_span": {"text": "The cat", "start": 0, "end": 7},
               "summary_span": {"text": "The cat", "start": 0, "end": 7}}
    for current in Response.objects.filter(assignment=assignment).order_by("position"):
        for page in pages:
            result = save(annotator, current, page, answers[page], seen_now(annotator, current))
            assert result.changed
    assert result.item_completed and result.assignment_submitted
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED


ANSWERS = {"pre": PRE, "post": PRE, "second": {"choice": None}, "relation": {"relation": "summarize"},
           "difficulty": {"difficulty": "easy"}, "support_span": {"text": "The cat", "start": 0, "end": 7},
           "summary_span": {"text": "The cat", "start": 0, "end": 7}}


def test_completing_an_item_and_the_unit_takes_two_statements_and_no_transaction(work):
    annotator, assignment, response = work
    pages = [p.slug for p in get_kind("recam").pages(RECAM_PAYLOAD)]
    second = Response.objects.filter(assignment=assignment).order_by("position").last()
    for current in (response, second):
        for page in pages[:-1]:
            save(annotator, current, page, ANSWERS[page], seen_now(annotator, current))
        seen = seen_now(annotator, current)
        with CaptureQueriesContext(connection) as queries:
            result = save(annotator, current, pages[-1], ANSWERS[pages[-1]], seen)
        # the answer, then the assignment (activity, and submitted if that was the last item):
        # SQLite never holds its write lock between two statements
        assert statements(queries) == ["UPDATE", "UPDATE"]
        assert result.item_completed
    assert result.assignment_submitted
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert fresh.status == Assignment.Status.SUBMITTED and fresh.submitted_at is not None


def test_submit_if_complete_submits_only_an_active_assignment_with_every_item_complete(work):
    annotator, assignment, response = work
    responses = Response.objects.filter(assignment=assignment)
    assert assignment_submit_if_complete(assignment.pk) is False  # nothing answered yet
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    responses.filter(pk=response.pk).update(completed_at=timezone.now())
    assert assignment_submit_if_complete(assignment.pk) is False  # one item left
    responses.update(completed_at=timezone.now())  # as if a save died before its second statement
    now = timezone.now()
    assert assignment_submit_if_complete(assignment.pk, now=now) is True
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert (fresh.status, fresh.submitted_at, fresh.last_activity_at) == (Assignment.Status.SUBMITTED, now, now)
    later = now + timedelta(minutes=5)
    assert assignment_submit_if_complete(assignment.pk, now=later) is True  # again: no change but the activity
    assert Assignment.objects.get(pk=assignment.pk).submitted_at == now


@pytest.mark.parametrize("status", [Assignment.Status.RELEASED, Assignment.Status.APPROVED, Assignment.Status.REJECTED])
def test_submit_if_complete_leaves_other_statuses(work, status):
    annotator, assignment, response = work
    Response.objects.filter(assignment=assignment).update(completed_at=timezone.now())
    update_row(Assignment, assignment.pk, {"status": status})
    assert assignment_submit_if_complete(assignment.pk) is False
    fresh = Assignment.objects.get(pk=assignment.pk)
    assert fresh.status == status and fresh.submitted_at is None
