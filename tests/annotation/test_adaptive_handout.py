"""Adaptive redundancy's hand-out (`selectors.work.next_unit` on an adaptive batch): settled items
are not handed out, nobody goes past the maximum, the least certain unit comes first, a stopped
spammer gets nothing; and a batch that is not adaptive runs the same single query as before."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import AnnotatorEstimate, Assignment, Batch, ItemEstimate, UnitItem
from annotation.selectors.work import next_unit
from annotation.services.assignments import NoWorkLeft, assignment_next
from annotation.services.batches import batch_create
from tests.annotation.adaptive_helpers import adaptive_batch, first_item, person
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def items_of(batch: Batch) -> list[int]:
    return list(UnitItem.objects.filter(unit__batch=batch).order_by("unit__position").values_list("item_id", flat=True))


def estimate(batch, item_id, posterior, *, labels=0, settled=False):
    ItemEstimate.objects.create(
        batch=batch, item_id=item_id, label="1", posterior=posterior, labels=labels, settled=settled
    )


def labelled(batch, item_id, posterior, *, labels=1):
    """An estimate made of `labels` submitted labels, as the aggregation would store it."""
    unit = UnitItem.objects.get(unit__batch=batch, item_id=item_id).unit
    for _ in range(labels):
        Assignment.objects.create(unit=unit, annotator=person(batch), status=Assignment.Status.SUBMITTED)
    estimate(batch, item_id, posterior, labels=labels)


def test_settled_items_are_not_handed_out():
    batch = adaptive_batch(3)
    first, second, third = items_of(batch)
    estimate(batch, first, 0.99, settled=True)
    estimate(batch, third, 0.99, settled=True)
    annotator = person(batch)
    assert first_item(assignment_next(annotator=annotator, batch=batch)) == second
    Assignment.objects.filter(annotator=annotator).update(status=Assignment.Status.SUBMITTED)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=annotator, batch=batch)


def test_an_item_gets_at_most_the_maximum_annotators():
    batch = adaptive_batch(1, max_annotators=2)
    for _ in range(2):
        assignment_next(annotator=person(batch), batch=batch)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=person(batch), batch=batch)


def test_the_least_certain_unit_comes_first_and_an_unestimated_one_before_it():
    batch = adaptive_batch(4)
    a, b, c, d = items_of(batch)
    estimate(batch, a, 0.8)
    estimate(batch, b, 0.4)
    estimate(batch, c, 0.6)
    assert first_item(assignment_next(annotator=person(batch), batch=batch)) == d  # nothing known of it yet
    estimate(batch, d, 0.9, labels=1)
    assert first_item(assignment_next(annotator=person(batch), batch=batch)) == b
    assert first_item(assignment_next(annotator=person(batch), batch=batch)) == c


def test_a_unit_handed_out_since_the_last_estimate_waits_behind_the_others():
    batch = adaptive_batch(2)
    a, b = items_of(batch)
    estimate(batch, a, 0.3)
    estimate(batch, b, 0.7)
    assert first_item(assignment_next(annotator=person(batch), batch=batch)) == a
    # a's estimate has not seen that label yet: b goes next, though it is surer
    assert first_item(assignment_next(annotator=person(batch), batch=batch)) == b


def test_an_annotator_first_gets_the_item_their_agreeing_label_would_settle():
    """Routing: the good annotator (settles from 0.74) closes the item at 0.85 before the less
    certain ones; the weak one (settles from 0.92) cannot close it and gets the least certain."""
    batch = adaptive_batch(3, target_confidence=0.98)
    fresh, started, doubtful = items_of(batch)
    labelled(batch, started, 0.85)
    labelled(batch, doubtful, 0.6)
    good, weak = person(batch), person(batch)
    AnnotatorEstimate.objects.create(batch=batch, annotator=good, competence=0.8, labels=20, settles_from=49 / 66)
    AnnotatorEstimate.objects.create(batch=batch, annotator=weak, competence=0.47, labels=20, settles_from=0.915)
    assert next_unit(batch, good, exclusive_groups=False).unit_items.get().item_id == started
    assert next_unit(batch, weak, exclusive_groups=False).unit_items.get().item_id == fresh
    assert next_unit(batch, person(batch), exclusive_groups=False).unit_items.get().item_id == fresh  # not estimated


def test_closing_needs_the_minimum_less_one_label():
    batch = adaptive_batch(2, target_confidence=0.98, min_annotators=3, max_annotators=5)
    one_label, two_labels = items_of(batch)
    labelled(batch, one_label, 0.85)
    labelled(batch, two_labels, 0.95, labels=2)
    good = person(batch)
    AnnotatorEstimate.objects.create(batch=batch, annotator=good, competence=0.8, labels=20, settles_from=49 / 66)
    assert next_unit(batch, good, exclusive_groups=False).unit_items.get().item_id == two_labels
    Assignment.objects.create(unit=next_unit(batch, good, exclusive_groups=False), annotator=person(batch))
    # that unit now has work its estimate has not seen: the other goes first, closable or not
    assert next_unit(batch, good, exclusive_groups=False).unit_items.get().item_id == one_label


def test_a_stopped_spammer_gets_no_more_work_and_others_still_do():
    batch = adaptive_batch(3, min_competence=0.3)
    spammer = person(batch)
    AnnotatorEstimate.objects.create(batch=batch, annotator=spammer, competence=0.05, labels=20, excluded=True)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=spammer, batch=batch)
    assert assignment_next(annotator=person(batch), batch=batch)


def test_adaptive_off_is_the_default_and_the_hand_out_stays_one_query_without_estimates():
    project = ProjectFactory()
    ItemFactory.create_batch(3, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    assert not batch.adaptive and batch.slots_per_unit == 2
    annotator = AnnotatorFactory(project=project, batch=batch)
    with CaptureQueriesContext(connection) as queries:
        assert next_unit(batch, annotator, exclusive_groups=False) is not None
    assert len(queries) == 1
    assert "estimate" not in queries.captured_queries[0]["sql"].lower()
    adaptive = adaptive_batch(3)
    somebody = person(adaptive)
    with CaptureQueriesContext(connection) as queries:
        assert next_unit(adaptive, somebody, exclusive_groups=False) is not None
    assert len(queries) == 1  # the adaptive rule is conditions of the same query
