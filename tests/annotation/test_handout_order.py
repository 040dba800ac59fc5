"""A batch's hand-out order (overlap first or spread) and its pilot: which unit a new annotator
gets, with the rules kept either way (N distinct annotators a unit, nobody a unit or item twice)."""

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import Assignment, Batch, Item, Response, Unit
from annotation.selectors.work import next_posted_unit
from annotation.services.assignments import NoWorkLeft, assignment_next, assignment_open_for_session
from annotation.services.batches import BatchError, batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

from .test_assignments import drain
from .test_cosimlex_assignment import cosimlex_project


def batch_of(n_items=6, per_unit=2, annotators=2, **kwargs):
    project = ProjectFactory()
    ItemFactory.create_batch(n_items, project=project)
    return batch_create(project=project, name="b", items_per_unit=per_unit, assignments_per_unit=annotators, **kwargs)


def people(batch, n):
    return [AnnotatorFactory(project=batch.project, batch=batch) for _ in range(n)]


def submit(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)


def positions(batch, person):
    return list(
        Assignment.objects.filter(annotator=person, unit__batch=batch)
        .order_by("id")
        .values_list("unit__position", flat=True)
    )


@pytest.mark.django_db
def test_new_batches_hand_out_overlap_first():
    assert batch_of().handout == Batch.Handout.OVERLAP == "overlap"


@pytest.mark.django_db
def test_with_overlap_first_two_annotators_get_the_same_first_unit_and_with_spread_different_ones():
    overlap, spread = batch_of(handout="overlap"), batch_of(handout="spread")
    first, second = people(overlap, 2)
    assert assignment_next(annotator=first, batch=overlap).unit == assignment_next(annotator=second, batch=overlap).unit
    first, second = people(spread, 2)
    assert assignment_next(annotator=first, batch=spread).unit != assignment_next(annotator=second, batch=spread).unit


@pytest.mark.django_db
def test_overlap_first_keeps_a_pair_on_the_same_units_as_they_go():
    batch = batch_of(n_items=8, per_unit=2, annotators=2)
    quick, slow = people(batch, 2)
    for person in (quick, slow):
        assignment_next(annotator=person, batch=batch)
    submit(assignment_next(annotator=quick, batch=batch))
    submit(assignment_next(annotator=quick, batch=batch))  # unit 1: nobody else holds a unit
    assignment_next(annotator=quick, batch=batch)  # unit 2: unit 1 they had
    submit(assignment_next(annotator=slow, batch=batch))
    assert assignment_next(annotator=slow, batch=batch).unit.position == 1  # joins quick there
    assert positions(batch, quick) == [0, 1, 2] and positions(batch, slow) == [0, 1]


@pytest.mark.django_db
def test_a_third_annotator_does_not_get_a_full_unit_nor_anyone_a_unit_twice():
    batch = batch_of(n_items=6, per_unit=2, annotators=2)
    first, second, third = people(batch, 3)
    full = assignment_next(annotator=first, batch=batch).unit
    assert assignment_next(annotator=second, batch=batch).unit == full
    assert assignment_next(annotator=third, batch=batch).unit.position == 1
    submit(Assignment.objects.get(annotator=first))
    assert assignment_next(annotator=first, batch=batch).unit.position == 1  # third's, not unit 0 again
    drain(batch, [first, second, third])
    per_unit = Counter(Assignment.objects.values_list("unit__position", flat=True))
    assert per_unit == {0: 2, 1: 2, 2: 2}
    pairs = list(Response.objects.values_list("item_id", "assignment__annotator_id"))
    assert len(pairs) == len(set(pairs))


@pytest.mark.django_db
def test_a_released_slot_is_filled_overlap_first_too():
    batch = batch_of(n_items=6, per_unit=2, annotators=2)
    first, second, third = people(batch, 3)
    held = assignment_next(annotator=first, batch=batch)
    assignment_next(annotator=second, batch=batch)
    Assignment.objects.filter(pk=held.pk).update(status=Assignment.Status.RELEASED)
    assert assignment_next(annotator=third, batch=batch).unit == held.unit  # one holder left: closest to complete


@pytest.mark.django_db
def test_a_recruiting_sites_session_is_handed_overlap_first_or_spread_as_the_batch_says():
    for handout, expected in (("overlap", 0), ("spread", 1)):
        batch = batch_of(n_items=6, per_unit=2, annotators=2, channel="prolific", handout=handout)
        first, second = people(batch, 2)
        assignment_open_for_session(batch=batch, annotator=first, channel_assignment_id=f"{handout}-1")
        assert next_posted_unit(batch, second, exclusive_groups=False).position == expected


@pytest.mark.django_db
def test_each_of_three_annotators_is_handed_the_pilot_units_first_whatever_the_annotators_per_item():
    batch = batch_of(n_items=10, per_unit=2, annotators=1, pilot_items=3)
    units = list(Unit.objects.filter(batch=batch).order_by("position"))
    assert (
        batch.pilot_items == 3
        and [(u.pilot, u.every_annotator) for u in units] == [(True, True)] * 2 + [(False, False)] * 4
    )
    pilot_items = list(Item.objects.filter(unit_items__unit__in=units[:2]).order_by("unit_items__unit__position", "id"))
    assert pilot_items == list(Item.objects.filter(project=batch.project).order_by("id")[:3])
    trio = people(batch, 3)
    for person in trio:
        submit(assignment_next(annotator=person, batch=batch))
        submit(assignment_next(annotator=person, batch=batch))
        assert positions(batch, person) == [0, 1]
    drain(batch, trio)
    per_item = Counter(Response.objects.values_list("item_id", flat=True))
    assert {per_item[i.pk] for i in pilot_items} == {3}  # no slot limit on the pilot
    assert set(per_item.values()) == {1, 3} and len(per_item) == 10


@pytest.mark.django_db
def test_a_pilot_must_leave_items_for_the_batch():
    with pytest.raises(BatchError, match="besides the consistency set and the pilot"):
        batch_of(n_items=4, pilot_items=4)
    with pytest.raises(BatchError, match="hand-out order"):
        batch_of(handout="random")


@pytest.mark.django_db
def test_a_cosimlex_pilot_holds_one_context_of_a_pair_and_its_pairs_leave_the_regular_units():
    project = cosimlex_project("fi")  # 12 pairs, 24 items
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1, pilot_items=3)
    pilot_groups = list(
        Item.objects.filter(unit_items__unit__batch=batch, unit_items__unit__pilot=True).values_list(
            "group_key", flat=True
        )
    )
    assert len(pilot_groups) == len(set(pilot_groups)) == 3
    regular = Item.objects.filter(unit_items__unit__batch=batch, unit_items__unit__pilot=False)
    assert regular.count() == 18 and not set(regular.values_list("group_key", flat=True)) & set(pilot_groups)
    person = AnnotatorFactory(project=project, batch=batch)
    taken = drain(batch, [person])[person]
    assert [a.unit.pilot for a in taken[:2]] == [True, True] and len(taken) > 2


@pytest.mark.django_db
def test_no_work_left_once_every_unit_is_full_overlap_first():
    batch = batch_of(n_items=2, per_unit=2, annotators=2)
    for person in people(batch, 2):
        assignment_next(annotator=person, batch=batch)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=AnnotatorFactory(project=batch.project, batch=batch), batch=batch)


@pytest.mark.django_db
def test_create_batch_takes_the_order_and_the_pilot():
    project = ProjectFactory()
    ItemFactory.create_batch(6, project=project)
    call_command(
        "create_batch",
        project.pk,
        "--name",
        "r1",
        "--items-per-unit",
        "2",
        "--handout",
        "spread",
        "--pilot-items",
        "2",
        stdout=StringIO(),
    )
    batch = Batch.objects.get()
    assert (batch.handout, batch.pilot_items, batch.units.filter(pilot=True).count()) == ("spread", 2, 1)


BEFORE = [("annotation", "0017_teams_team_required")]


@pytest.mark.django_db(transaction=True)
def test_batches_made_before_keep_spread_unless_they_adjudicate():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    team = old.get_model("annotation", "Team").objects.create(name="old team")
    project = old.get_model("annotation", "Project").objects.create(name="old study", kind="gcrc", team=team)
    batches = old.get_model("annotation", "Batch").objects
    plain, adjudicated, switched_off = (batches.create(project=project, name=n) for n in ("plain", "adj", "off"))
    setups = old.get_model("annotation", "AdjudicationSetup").objects
    setups.create(batch=adjudicated, enabled=True)
    setups.create(batch=switched_off, enabled=False)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    handouts = dict(Batch.objects.filter(project__name="old study").values_list("name", "handout"))
    assert handouts == {"plain": "spread", "adj": "overlap", "off": "spread"}
    assert not Unit.objects.filter(pilot=True).exists()
