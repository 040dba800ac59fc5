"""annotation.unit_reads: the SQL that chooses the next unit gives the unit that the ORM rule
gives (kept here as the oracle: `services.assignments._seen` and the ordering the service had),
on random batches with overlapping batches, exclusive groups, a consistency set, released,
submitted and reviewed assignments; and an annotator's assignments are summarized right."""
from __future__ import annotations

import random

import pytest
from django.db.models import Count, Q

from annotation.models import Assignment, Item, Unit
from annotation.services.assignments import _seen
from annotation.services.batches import batch_create
from annotation.unit_reads import annotator_assignments, next_unit_id, slots_taken
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

STATUSES = [Assignment.Status.ACTIVE, Assignment.Status.SUBMITTED, Assignment.Status.RELEASED,
            Assignment.Status.APPROVED, Assignment.Status.REJECTED]


def oracle(batch, annotator, exclusive: bool) -> int | None:
    """The rule as the ORM states it: the every-annotator unit not had yet, else the open unit
    with the fewest holds, earliest first, holding nothing seen."""
    consistency = (
        Unit.objects.filter(batch=batch, every_annotator=True)
        .exclude(assignments__annotator=annotator)
        .annotate(seen=_seen(annotator, exclusive_groups=False))
        .filter(seen=False)
        .order_by("position")
        .first()
    )
    if consistency is not None:
        return consistency.pk
    holds = Count("assignments", filter=Q(assignments__status__in=Assignment.HOLDING))
    unit = (
        Unit.objects.filter(batch=batch, every_annotator=False)
        .annotate(holds=holds)
        .filter(holds__lt=batch.assignments_per_unit)
        .annotate(seen=_seen(annotator, exclusive))
        .filter(seen=False)
        .order_by("holds", "position")
        .first()
    )
    return unit.pk if unit is not None else None


def _scenario(rng: random.Random, kind: str):
    project = ProjectFactory(kind=kind)
    items = []
    for n in range(rng.randint(8, 14)):
        group = f"pair-{n // 2}" if kind == "cosimlex" else ""
        items.append(ItemFactory(project=project, group_key=group))
    if rng.random() < 0.5:
        project.settings = {**(project.settings or {}), "consistency_items": [items[0].external_id]}
        project.save()
    # a CoSimLex unit holds one item of a group: at most half the pairs per unit
    per_unit = 2 if kind == "cosimlex" else 3
    batches = [batch_create(project=project, name=f"b{b}", items_per_unit=rng.randint(1, per_unit),
                            assignments_per_unit=rng.randint(1, 3))
               for b in range(rng.randint(1, 2))]
    people = [AnnotatorFactory(project=project) for _ in range(rng.randint(2, 5))]
    units = list(Unit.objects.filter(batch__in=batches))
    for person in people:  # some history: assignments anywhere, in any status
        for unit in rng.sample(units, k=min(len(units), rng.randint(0, 3))):
            Assignment.objects.create(unit=unit, annotator=person, status=rng.choice(STATUSES))
    return project, batches, people


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["recam", "cosimlex"])
@pytest.mark.parametrize("seed", range(12))
def test_next_unit_matches_the_orm_rule(kind, seed):
    rng = random.Random(seed * 31 + len(kind))
    project, batches, people = _scenario(rng, kind)
    exclusive = kind == "cosimlex"
    checked = 0
    for batch in batches:
        for person in people:
            expected = oracle(batch, person, exclusive)
            got = next_unit_id(batch_id=batch.pk, annotator_id=person.pk, project_id=project.pk,
                               slots=batch.assignments_per_unit, exclusive_groups=exclusive)
            assert got == expected, (seed, batch.pk, person.pk)
            checked += expected is not None
    assert checked  # the scenarios do leave units to choose


@pytest.mark.django_db
def test_a_cosimlex_pairs_other_context_is_not_chosen():
    project = ProjectFactory(kind="cosimlex")
    first = ItemFactory(project=project, group_key="pair-1")
    ItemFactory(project=project, group_key="pair-1")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    person = AnnotatorFactory(project=project)
    had = Unit.objects.get(batch=batch, unit_items__item=first)
    Assignment.objects.create(unit=had, annotator=person, status=Assignment.Status.SUBMITTED)
    args = dict(batch_id=batch.pk, annotator_id=person.pk, project_id=project.pk, slots=2)
    assert next_unit_id(**args, exclusive_groups=True) is None
    other = Unit.objects.exclude(pk=had.pk).get(batch=batch)
    assert next_unit_id(**args, exclusive_groups=False) == other.pk  # the rule, not chance


@pytest.mark.django_db
def test_annotator_assignments_summary():
    project = ProjectFactory()
    ItemFactory.create_batch(6, project=project)
    first = batch_create(project=project, name="a", items_per_unit=2, assignments_per_unit=2)
    second = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=2)
    person = AnnotatorFactory(project=project)
    u1, u2, u3 = Unit.objects.filter(batch=first).order_by("position")
    (v1, *_rest) = Unit.objects.filter(batch=second).order_by("position")
    released_done = Assignment.objects.create(unit=u1, annotator=person, status=Assignment.Status.RELEASED)
    released_open = Assignment.objects.create(unit=u2, annotator=person, status=Assignment.Status.RELEASED)
    active = Assignment.objects.create(unit=u3, annotator=person)
    elsewhere = Assignment.objects.create(unit=v1, annotator=person)
    for assignment, item in ((released_done, Item.objects.first()), (released_open, Item.objects.last())):
        assignment.responses.create(item=item, position=0)
    released_done.responses.update(completed_at="2026-01-01T00:00:00Z")
    summary = annotator_assignments(person.pk)
    assert len(summary) == 4
    assert summary.current(first.pk).pk == active.pk
    assert summary.current(second.pk).pk == elsewhere.pk
    assert summary.unfinished_released(first.pk).pk == released_open.pk
    assert summary.unfinished_released(second.pk) is None
    got = summary.current(first.pk)
    assert (got.unit_id, got.annotator_id, got.status) == (u3.pk, person.pk, "active")
    assert got.last_activity_at == Assignment.objects.get(pk=active.pk).last_activity_at


@pytest.mark.django_db
def test_slots_taken():
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="a", items_per_unit=2, assignments_per_unit=3)
    unit = Unit.objects.get(batch=batch)
    people = [AnnotatorFactory(project=project) for _ in range(4)]
    for person, status in zip(people, [Assignment.Status.ACTIVE, Assignment.Status.RELEASED,
                                       Assignment.Status.APPROVED, Assignment.Status.SUBMITTED]):
        Assignment.objects.create(unit=unit, annotator=person, status=status)
    assert slots_taken(unit_id=unit.pk, annotator_id=people[0].pk) == (3, 1, False)
    Unit.objects.filter(pk=unit.pk).update(every_annotator=True)
    assert slots_taken(unit_id=unit.pk, annotator_id=AnnotatorFactory(project=project).pk) == (3, 0, True)
