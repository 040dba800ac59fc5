"""Handing out units: exactly N distinct annotators per item, nobody twice, idle work released."""

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import Assignment, Response, UnitItem
from annotation.services.assignments import (
    NoWorkLeft,
    annotator_join_via_invite,
    assignment_next,
    assignments_release_abandoned,
)
from annotation.services.batches import batch_create, invite_link_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory


def make_batch(n_items=6, per_unit=2, annotators=3, **kwargs):
    project = ProjectFactory()
    ItemFactory.create_batch(n_items, project=project)
    return batch_create(project=project, name="b", items_per_unit=per_unit, assignments_per_unit=annotators, **kwargs)


def drain(batch, people):
    """Each person takes units until none is left for them; returns their assignments."""
    taken = {}
    for person in people:
        taken[person] = []
        while True:
            try:
                assignment = assignment_next(annotator=person, batch=batch)
            except NoWorkLeft:
                break
            Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
            taken[person].append(assignment)
    return taken


@pytest.mark.django_db
def test_each_item_gets_exactly_n_distinct_annotators():
    batch = make_batch(n_items=7, per_unit=2, annotators=3)
    people = [AnnotatorFactory(project=batch.project, batch=batch) for _ in range(5)]
    drain(batch, people)
    per_item = Counter()
    for item_id, _annotator_id in Response.objects.values_list("item_id", "assignment__annotator_id"):
        per_item[item_id] += 1
    assert set(per_item.values()) == {3}
    assert len(per_item) == 7
    pairs = list(Response.objects.values_list("item_id", "assignment__annotator_id"))
    assert len(pairs) == len(set(pairs))  # nobody saw an item twice


@pytest.mark.django_db
def test_nobody_gets_an_item_twice_across_batches():
    project = ProjectFactory()
    items = ItemFactory.create_batch(4, project=project)
    first = batch_create(project=project, name="one", items=items[:2], items_per_unit=2, assignments_per_unit=1)
    second = batch_create(project=project, name="two", items=items, items_per_unit=1, assignments_per_unit=2)
    person = AnnotatorFactory(project=project)
    drain(first, [person])
    taken = drain(second, [person])[person]
    seen = [ui.item_id for a in taken for ui in UnitItem.objects.filter(unit=a.unit)]
    assert sorted(seen) == sorted(i.pk for i in items[2:])


@pytest.mark.django_db
def test_current_assignment_is_resumed_not_duplicated():
    batch = make_batch()
    person = AnnotatorFactory(project=batch.project)
    a = assignment_next(annotator=person, batch=batch)
    b = assignment_next(annotator=person, batch=batch)
    assert a.pk == b.pk
    assert Assignment.objects.count() == 1
    assert a.responses.count() == 2


@pytest.mark.django_db
def test_abandoned_unit_is_released_after_configured_time_and_reclaimed_if_free():
    batch = make_batch(n_items=2, per_unit=2, annotators=1, release_after_minutes=30)
    idle, other = (AnnotatorFactory(project=batch.project) for _ in range(2))
    held = assignment_next(annotator=idle, batch=batch)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=other, batch=batch)
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=timezone.now() - timedelta(minutes=29))
    assert assignments_release_abandoned(batch=batch) == 0
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=timezone.now() - timedelta(minutes=31))
    assert assignments_release_abandoned(batch=batch) == 1
    # the idle annotator comes back first: the unit is still free, so it is theirs again
    assert assignment_next(annotator=idle, batch=batch).pk == held.pk
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=timezone.now() - timedelta(hours=2))
    taken = assignment_next(annotator=other, batch=batch)  # released on the way, then taken
    assert taken.unit_id == held.unit_id
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.RELEASED
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=idle, batch=batch)  # their items went to somebody else


@pytest.mark.django_db
def test_invite_limit_and_closed_invites():
    batch = make_batch()
    link = invite_link_create(batch=batch, max_annotators=1)
    first = annotator_join_via_invite(invite=link)
    assert annotator_join_via_invite(invite=link, known_key=first.access_key).pk == first.pk
    from annotation.services.assignments import InviteClosed

    with pytest.raises(InviteClosed):
        annotator_join_via_invite(invite=link)
    link.active = False
    link.save()
    with pytest.raises(InviteClosed):
        annotator_join_via_invite(invite=link, known_key=first.access_key)


@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_never_overfill_a_unit():
    batch = make_batch(n_items=6, per_unit=2, annotators=2)
    people = [AnnotatorFactory(project=batch.project) for _ in range(12)]
    errors = []
    barrier = threading.Barrier(len(people))

    def take(person):
        try:
            barrier.wait()
            assignment_next(annotator=person, batch=batch)
        except NoWorkLeft:
            pass
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=take, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    per_unit = Counter(Assignment.objects.values_list("unit_id", flat=True))
    assert sorted(per_unit.values()) == [2, 2, 2]


@pytest.mark.django_db(transaction=True)
def test_one_annotators_parallel_requests_get_one_assignment():
    """Two tabs of one person asking for work at once: the unit is chosen in the batch's lock,
    after a second look for an assignment the other request made, so they share one."""
    batch = make_batch(n_items=6, per_unit=2, annotators=2)
    person = AnnotatorFactory(project=batch.project)
    got, errors = [], []
    barrier = threading.Barrier(4)

    def take():
        try:
            barrier.wait()
            got.append(assignment_next(annotator=person, batch=batch).pk)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(got)) == 1 and Assignment.objects.filter(annotator=person).count() == 1
