"""The fixed-SQL writes of handing out a unit (annotation/services/assignment_rows.py): the same
rows the ORM wrote, in fewer statements, on both databases."""
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, Response
from annotation.services import assignment_rows
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def _batch(n_items=6, per_unit=3, **kwargs):
    project = ProjectFactory()
    ItemFactory.create_batch(n_items, project=project)
    return batch_create(project=project, name="b", items_per_unit=per_unit, assignments_per_unit=1, **kwargs)


def test_handing_out_a_unit_takes_one_savepoint_pair_and_few_statements():
    """The hand-out in a request: read the annotator's assignments, release idle ones, choose,
    read the unit's items, then lock, check, insert the assignment and its responses. The
    assignment's insert needs no savepoint of its own (a duplicate inserts nothing)."""
    batch = _batch()
    annotator = AnnotatorFactory(project=batch.project, batch=batch)
    with CaptureQueriesContext(connection) as queries:
        assignment = assignment_next(annotator=annotator, batch=batch)
    statements = [q["sql"] for q in queries]
    savepoints = [s for s in statements if s.startswith("SAVEPOINT")]
    assert len(savepoints) == 1, statements  # the lock's transaction (a savepoint inside the test's)
    expected = 10 if connection.features.has_select_for_update else 9  # with the batch's row lock
    assert len(statements) == expected, statements
    rows = list(Response.objects.filter(assignment=assignment).values_list("position", "answers", "timings", "completed_at"))
    assert rows == [(0, {}, {}, None), (1, {}, {}, None), (2, {}, {}, None)]


def test_a_new_assignment_is_the_row_the_orm_reads_back():
    batch = _batch()
    annotator = AnnotatorFactory(project=batch.project, batch=batch)
    made = assignment_next(annotator=annotator, batch=batch)
    stored = Assignment.objects.get(pk=made.pk)
    for field in ("unit_id", "annotator_id", "status", "channel_assignment_id", "started_at", "last_activity_at",
                  "submitted_at"):
        assert getattr(made, field) == getattr(stored, field), field
    assert stored.status == Assignment.Status.ACTIVE and stored.started_at == stored.last_activity_at
    assert made.annotator == annotator


def test_a_second_insert_of_the_same_unit_and_annotator_is_refused_and_the_transaction_goes_on():
    batch = _batch()
    annotator = AnnotatorFactory(project=batch.project, batch=batch)
    unit = batch.units.first()
    with transaction.atomic():
        first = assignment_rows.insert_assignment(unit_id=unit.pk, annotator_id=annotator.pk, now=timezone.now())
        again = assignment_rows.insert_assignment(unit_id=unit.pk, annotator_id=annotator.pk, now=timezone.now())
        assert first is not None and again is None
        assert Assignment.objects.filter(unit=unit).count() == 1  # the transaction is still usable


def test_without_returning_the_new_assignment_is_found_by_its_unit_and_annotator(monkeypatch):
    """SQLite before 3.35 has no RETURNING: the id is read back after the insert."""
    batch = _batch()
    annotator = AnnotatorFactory(project=batch.project, batch=batch)
    unit = batch.units.first()
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    made = assignment_rows.insert_assignment(unit_id=unit.pk, annotator_id=annotator.pk, now=timezone.now())
    assert made is not None and Assignment.objects.get(unit=unit, annotator=annotator).pk == made.pk
    assert assignment_rows.insert_assignment(unit_id=unit.pk, annotator_id=annotator.pk, now=timezone.now()) is None


def test_many_responses_are_inserted_in_bounded_statements():
    project = ProjectFactory()
    items = ItemFactory.create_batch(250, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=250, assignments_per_unit=1)
    annotator = AnnotatorFactory(project=project, batch=batch)
    made = assignment_rows.insert_assignment(unit_id=batch.units.first().pk, annotator_id=annotator.pk,
                                             now=timezone.now())
    rows = [(item.pk, n) for n, item in enumerate(reversed(items))]
    with CaptureQueriesContext(connection) as queries:
        assignment_rows.insert_responses(made.pk, rows)
    assert len(queries) == 3  # 100 + 100 + 50
    stored = sorted(Response.objects.filter(assignment=made).values_list("item_id", "position"), key=lambda r: r[1])
    assert stored == rows


def test_only_the_batchs_active_idle_assignments_are_released():
    batch, other = _batch(n_items=9, release_after_minutes=30), _batch(release_after_minutes=30)
    made = {}
    for name, b in [("idle", batch), ("submitted", batch), ("recent", batch), ("elsewhere", other)]:
        made[name] = assignment_next(annotator=AnnotatorFactory(project=b.project, batch=b), batch=b).pk
    long_ago = timezone.now() - timedelta(hours=1)
    Assignment.objects.filter(pk__in=[made["idle"], made["elsewhere"]]).update(last_activity_at=long_ago)
    Assignment.objects.filter(pk=made["submitted"]).update(status=Assignment.Status.SUBMITTED, last_activity_at=long_ago)
    cutoff = timezone.now() - timedelta(minutes=30)
    assert assignment_rows.release_idle(batch_id=batch.pk, idle_since=cutoff) == 1
    status = dict(Assignment.objects.values_list("pk", "status"))
    assert status[made["idle"]] == Assignment.Status.RELEASED
    assert [status[made[n]] for n in ("submitted", "recent", "elsewhere")] == ["submitted", "active", "active"]
    assert assignment_rows.release_idle(batch_id=batch.pk, idle_since=cutoff) == 0
