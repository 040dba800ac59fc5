"""The reads behind the annotator's pages (annotation/selectors/work.py): the hand-out rule, the
current assignment and its progress, and what an access key may read."""

import pytest

from annotation.models import Assignment, Response, Unit
from annotation.selectors.work import (
    assignment_with_progress,
    next_unit,
    response_for_save,
    unit_progress,
    work_state,
)
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, save_answer

pytestmark = pytest.mark.django_db


def batch_of(n_items=6, per_unit=2, annotators=2, **kwargs):
    project = ProjectFactory()
    ItemFactory.create_batch(n_items, project=project)
    return batch_create(project=project, name="b", items_per_unit=per_unit, assignments_per_unit=annotators, **kwargs)


@pytest.mark.parametrize("handout, expected", [("spread", 1), ("overlap", 0)])
def test_next_unit_prefers_the_emptiest_unit_spread_or_the_fullest_overlap_first_then_the_earliest(handout, expected):
    batch = batch_of(n_items=6, per_unit=2, annotators=2, handout=handout)
    units = list(Unit.objects.filter(batch=batch).order_by("position"))
    person = AnnotatorFactory(project=batch.project, batch=batch)
    assert next_unit(batch, person, exclusive_groups=False) == units[0]
    assignment_next(annotator=AnnotatorFactory(project=batch.project, batch=batch), batch=batch)  # takes units[0]
    assert next_unit(batch, person, exclusive_groups=False) == units[expected]


def test_next_unit_skips_full_units_and_units_the_annotator_holds_or_has_seen():
    batch = batch_of(n_items=4, per_unit=2, annotators=1)
    first, second = Unit.objects.filter(batch=batch).order_by("position")
    person = AnnotatorFactory(project=batch.project, batch=batch)
    assert assignment_next(annotator=person, batch=batch).unit == first
    assert next_unit(batch, person, exclusive_groups=False) == second  # not the one they hold
    other = AnnotatorFactory(project=batch.project, batch=batch)
    assignment_next(annotator=other, batch=batch)  # second is full now (one annotator a unit)
    assert next_unit(batch, AnnotatorFactory(project=batch.project, batch=batch), exclusive_groups=False) is None
    # a second batch over the same items: the person has seen first's items there already
    again = batch_create(
        project=batch.project, name="again", items=list(first.items.all()), items_per_unit=2, assignments_per_unit=1
    )
    assert next_unit(again, person, exclusive_groups=False) is None
    assert next_unit(again, other, exclusive_groups=False) is not None


def test_released_slots_count_as_free():
    batch = batch_of(n_items=2, per_unit=2, annotators=1)
    taken = assignment_next(annotator=AnnotatorFactory(project=batch.project, batch=batch), batch=batch)
    newcomer = AnnotatorFactory(project=batch.project, batch=batch)
    assert next_unit(batch, newcomer, exclusive_groups=False) is None
    Assignment.objects.filter(pk=taken.pk).update(status=Assignment.Status.RELEASED)
    assert next_unit(batch, newcomer, exclusive_groups=False) == taken.unit


def test_work_state_is_the_earliest_active_assignment_of_the_batch_with_its_progress():
    batch = batch_of(n_items=4, per_unit=2, annotators=1)
    person = AnnotatorFactory(project=batch.project, batch=batch)
    assert work_state(person.access_key).assignment is None  # nothing handed out yet
    assert work_state("no-such-key") is None
    assignment = assignment_next(annotator=person, batch=batch)
    state = work_state(person.access_key)
    assert state.assignment == assignment and (state.progress.done, state.progress.total) == (0, 2)
    first = state.progress.current
    assert first.position == 0 and first.item.payload
    Response.objects.filter(pk=first.pk).update(completed_at=assignment.started_at)
    state = work_state(person.access_key)
    assert (state.progress.done, state.progress.total) == (1, 2) and state.progress.current.position == 1
    assert unit_progress(assignment, batch.project).current.pk == state.progress.current.pk
    found, progress = assignment_with_progress(assignment.pk)
    assert found == assignment and (progress.done, progress.total) == (1, 2)


def test_an_access_key_reads_only_its_own_responses_and_the_frame_only_its_assignment():
    batch = batch_of(n_items=4, per_unit=2, annotators=1)
    alice, bob = (AnnotatorFactory(project=batch.project, batch=batch) for _ in range(2))
    mine = assignment_next(annotator=alice, batch=batch)
    theirs = assignment_next(annotator=bob, batch=batch)
    response = Response.objects.filter(assignment=mine).first()
    assert response_for_save(response.pk, access_key=alice.access_key).pk == response.pk
    assert response_for_save(response.pk, access_key=bob.access_key) is None
    assert response_for_save(response.pk, assignment_id=theirs.pk) is None
    assert response_for_save(response.pk, assignment_id=mine.pk).pk == response.pk
    assert response_for_save(None, access_key=alice.access_key) is None
    assert response_for_save(response.pk) is None  # neither key nor assignment: nothing


def test_progress_follows_the_saves_and_the_item_count_is_fixed_at_hand_out():
    batch = batch_of(n_items=2, per_unit=2, annotators=1)
    person = AnnotatorFactory(project=batch.project, batch=batch)
    assignment = assignment_next(annotator=person, batch=batch)
    assert assignment.item_count == 2 == Response.objects.filter(assignment=assignment).count()
    response = Response.objects.filter(assignment=assignment).order_by("position").first()
    progress = unit_progress(assignment, batch.project)
    assert (progress.done, progress.total, progress.current.pk) == (0, 2, response.pk)
    save_answer(response.pk, "pre", {"choice": response.item.payload["label"]})
    assert unit_progress(assignment, batch.project).done == 0  # a page is not an item
    Response.objects.filter(pk=response.pk).update(completed_at=assignment.started_at)
    progress = unit_progress(assignment, batch.project)
    assert (progress.done, progress.total) == (1, 2) and progress.current.position == 1
    Response.objects.filter(assignment=assignment).update(completed_at=assignment.started_at)
    progress = unit_progress(assignment, batch.project)
    assert (progress.current, progress.done, progress.total) == (None, 2, 2)
    read = response_for_save(response.pk, access_key=person.access_key)
    assert read.item.project == batch.project and read.assignment.annotator_id == person.pk
