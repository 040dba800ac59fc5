"""CoSimLex's assignment rule: an annotator rates one of a pair's two contexts, ever, across all
of the project's batches; each context still gets its number of annotators; the consistency set
is done by everyone first."""

import io
from collections import Counter, defaultdict

import pytest

from annotation.models import Assignment, Item, Response, Unit
from annotation.services.assignments import NoWorkLeft, assignment_next
from annotation.services.batches import BatchError, batch_create
from annotation.services.imports import items_import
from annotation.services.projects import consistency_set_choose
from tests.conftest import data_file
from tests.factories import AnnotatorFactory, ProjectFactory

from .test_assignments import drain

pytestmark = pytest.mark.django_db


def cosimlex_project(lang: str = "en", **settings):
    project = ProjectFactory(kind="cosimlex", language=lang, settings=settings)
    items_import(project=project, data=data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes())
    return project


def contexts_by_annotator():
    seen = defaultdict(list)
    for annotator_id, group_key in Response.objects.values_list("assignment__annotator_id", "item__group_key"):
        seen[annotator_id].append(group_key)
    return seen


def test_no_unit_holds_both_contexts_of_a_pair():
    project = cosimlex_project("fi")  # 12 pairs, 24 items
    batch = batch_create(project=project, name="b", items_per_unit=12, assignments_per_unit=2)
    for unit in Unit.objects.filter(batch=batch):
        groups = list(unit.items.values_list("group_key", flat=True))
        assert len(groups) == len(set(groups)) == 12
    with pytest.raises(BatchError, match="too many for 12 groups"):
        batch_create(project=project, name="too big", items_per_unit=13, assignments_per_unit=2)


def test_annotators_rate_one_context_per_pair_and_every_context_gets_its_annotators():
    project = cosimlex_project("fi")
    batch = batch_create(project=project, name="b", items_per_unit=4, assignments_per_unit=3)
    people = [AnnotatorFactory(project=project, batch=batch) for _ in range(8)]
    drain(batch, people)
    for annotator_id, groups in contexts_by_annotator().items():
        assert len(groups) == len(set(groups)), f"annotator {annotator_id} got both contexts of a pair"
    per_item = Counter(Response.objects.values_list("item_id", flat=True))
    assert set(per_item.values()) == {3} and len(per_item) == 24


def test_the_rule_holds_across_batches_of_the_project():
    project = cosimlex_project("fi")
    first_contexts = list(Item.objects.filter(project=project, payload__context=1))
    second_contexts = list(Item.objects.filter(project=project, payload__context=2))
    one = batch_create(
        project=project, name="contexts 1", items=first_contexts, items_per_unit=12, assignments_per_unit=1
    )
    two = batch_create(
        project=project, name="contexts 2", items=second_contexts, items_per_unit=12, assignments_per_unit=1
    )
    person = AnnotatorFactory(project=project, batch=one)
    assignment_next(annotator=person, batch=one)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=person, batch=two)
    other = AnnotatorFactory(project=project, batch=two)
    assert assignment_next(annotator=other, batch=two).unit.batch_id == two.pk


def test_released_work_still_counts_as_seen():
    project = cosimlex_project("fi")
    first = list(Item.objects.filter(project=project, payload__context=1))
    second = list(Item.objects.filter(project=project, payload__context=2))
    one = batch_create(project=project, name="1", items=first, items_per_unit=12, assignments_per_unit=1)
    two = batch_create(project=project, name="2", items=second, items_per_unit=12, assignments_per_unit=1)
    person = AnnotatorFactory(project=project, batch=one)
    taken = assignment_next(annotator=person, batch=one)
    Assignment.objects.filter(pk=taken.pk).update(status=Assignment.Status.RELEASED)
    with pytest.raises(NoWorkLeft):
        assignment_next(annotator=person, batch=two)


def test_consistency_set_is_done_first_by_everyone_and_leaves_the_regular_units():
    project = cosimlex_project("en")
    chosen = consistency_set_choose(project=project, size=3, seed=7)
    assert len(chosen) == 3 and project.settings["consistency_items"] == chosen
    consistency_items = Item.objects.filter(project=project, external_id__in=chosen)
    consistency_groups = set(consistency_items.values_list("group_key", flat=True))
    assert len(consistency_groups) == 3
    batch = batch_create(project=project, name="b", items_per_unit=5, assignments_per_unit=2)
    everyone = Unit.objects.get(batch=batch, every_annotator=True)
    assert set(everyone.items.values_list("external_id", flat=True)) == set(chosen)
    regular_groups = set(
        Item.objects.filter(unit_items__unit__batch=batch, unit_items__unit__every_annotator=False).values_list(
            "group_key", flat=True
        )
    )
    assert not regular_groups & consistency_groups
    assert len(regular_groups) == 27
    people = [AnnotatorFactory(project=project, batch=batch) for _ in range(6)]
    for person in people:
        assert assignment_next(annotator=person, batch=batch).unit_id == everyone.pk
    taken = drain(batch, people)
    assert all(assignments[0].unit_id == everyone.pk for assignments in taken.values())
    assert Assignment.objects.filter(unit=everyone).count() == 6  # no slot limit
    per_item = Counter(
        Response.objects.filter(assignment__unit__every_annotator=False).values_list("item_id", flat=True)
    )
    assert set(per_item.values()) == {2} and len(per_item) == 54


def test_a_consistency_set_naming_unknown_items_is_refused():
    project = cosimlex_project("fi", consistency_items=["no such item"])
    with pytest.raises(BatchError, match="no such item"):
        batch_create(project=project, name="b", items_per_unit=4, assignments_per_unit=2)


@pytest.mark.parametrize("lang, expected", [("en", 27), ("hr", 12), ("fi", 12)])
def test_batches_default_to_the_papers_annotators_per_context(admin_client, lang, expected):
    from django.core.management import call_command

    from annotation.models import Batch

    project = cosimlex_project("fi")
    project.language = lang
    project.save()
    call_command("create_batch", str(project.pk), "--name", "cmd", "--items-per-unit", "4", stdout=io.StringIO())
    assert Batch.objects.get(name="cmd").assignments_per_unit == expected
    response = admin_client.post(
        "/api/batches/", {"project": project.pk, "name": "api", "items_per_unit": 4}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    assert Batch.objects.get(name="api").assignments_per_unit == expected
