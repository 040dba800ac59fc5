"""The annotator's hot reads (fixed SQL) give exactly the objects the ORM gives."""
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.annotator_reads import response_of_annotator, unit_state, work_state
from annotation.models import Annotator, Assignment, Response
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from annotation.sqlrows import update_row
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def values(instance):
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


@pytest.fixture
def started():
    """An annotator half-way through a 3-item unit: answers with unicode, quotes, numbers,
    nested JSON, a completed item (a datetime), project settings as JSON."""
    project = ProjectFactory(settings={"accuracy_threshold": 0.4, "note": "« ünïcode » \"q\""}, language="hr")
    ItemFactory.create_batch(3, project=project, payload={"article": "Tekst „č“ 1.5", "n": [1, 2.5, None]})
    batch = batch_create(project=project, name="b", items_per_unit=3, assignments_per_unit=1)
    annotator = AnnotatorFactory(project=project, batch=batch)
    assignment = assignment_next(annotator=annotator, batch=batch)
    first, second, _ = Response.objects.filter(assignment=assignment).order_by("position")
    first.answers = {"pre": {"choice": "2"}, "span": {"text": 'a "b", c\nd', "start": 3, "end": 9}}
    first.timings = {"pre": {"seconds": 1.25, "shown_at": None}}
    first.completed_at = timezone.now() - timedelta(minutes=3)
    first.save()
    second.answers = {"pre": {"choice": "0"}}
    second.save()
    return annotator, assignment


def test_work_state_equals_the_orm(started):
    annotator, assignment = started
    with CaptureQueriesContext(connection) as queries:
        state = work_state(annotator.access_key)
        # everything the page reads is already loaded
        assert state.annotator.project.language == "hr" and state.annotator.batch.name == "b"
        current, done, total = state.unit_state()
        assert current.item.payload["n"] == [1, 2.5, None]
        assert current.assignment.annotator is state.annotator
    assert len(queries) == 1
    expected = Annotator.objects.select_related("project", "batch").get(pk=annotator.pk)
    assert values(state.annotator) == values(expected)
    assert values(state.annotator.project) == values(expected.project)
    assert values(state.annotator.batch) == values(expected.batch)
    assert values(state.assignment) == values(Assignment.objects.get(pk=assignment.pk))
    orm = list(Response.objects.select_related("item").filter(assignment=assignment).order_by("position"))
    assert values(current) == values(orm[1]) and values(current.item) == values(orm[1].item)
    assert (done, total) == (1, 3)
    assert unit_state(assignment)[0].pk == current.pk and unit_state(assignment)[1:] == (1, 3)


def test_work_state_without_an_active_assignment_or_batch():
    project = ProjectFactory()
    loose = AnnotatorFactory(project=project)
    state = work_state(loose.access_key)
    assert state.annotator.pk == loose.pk and state.annotator.batch is None
    assert state.assignment is None and state.unit_state() == (None, 0, 0)
    assert work_state("no-such-key") is None


def test_work_state_takes_the_earliest_active_assignment_of_the_batch_only(started):
    annotator, assignment = started
    update_row(Assignment, assignment.pk, {"status": Assignment.Status.SUBMITTED})
    assert work_state(annotator.access_key).assignment is None  # assignment_next decides then
    update_row(Assignment, assignment.pk, {"status": Assignment.Status.ACTIVE})
    other_batch = batch_create(project=annotator.project, name="other", items_per_unit=3, assignments_per_unit=1)
    ItemFactory.create_batch(3, project=annotator.project)
    assert work_state(annotator.access_key).assignment.pk == assignment.pk
    Annotator.objects.filter(pk=annotator.pk).update(batch=other_batch)
    assert work_state(annotator.access_key).assignment is None


def test_response_of_annotator_refuses_other_annotators_work(started):
    annotator, assignment = started
    response = Response.objects.filter(assignment=assignment).first()
    stranger = AnnotatorFactory(project=annotator.project)
    assert response_of_annotator(response.pk, stranger) is None
    assert response_of_annotator(response.pk, stranger.pk) is None
    mine = response_of_annotator(response.pk, annotator)
    assert values(mine) == values(response) and mine.item.project.pk == annotator.project_id
    assert mine.assignment.annotator is annotator
    with transaction.atomic():
        locked = response_of_annotator(response.pk, annotator.pk, for_update=True)
    assert values(locked) == values(response)


def test_update_row_stores_what_the_orm_would_read_back(started):
    annotator, assignment = started
    response = Response.objects.filter(assignment=assignment).first()
    now = timezone.now()
    answers = {"x": 'ü "q"', "n": 1.5, "l": [1, None, True]}
    assert update_row(Response, response.pk, {"answers": answers, "completed_at": now}) == 1
    fresh = Response.objects.get(pk=response.pk)
    assert fresh.answers == answers and fresh.completed_at == now
    assert update_row(Response, 0, {"answers": {}}) == 0


def test_annotator_with_response_reads_both_in_one_query(started):
    from annotation.annotator_reads import annotator_with_response

    annotator, assignment = started
    response = Response.objects.filter(assignment=assignment).order_by("position").first()
    with CaptureQueriesContext(connection) as queries:
        found, mine = annotator_with_response(annotator.access_key, response.pk)
    assert len(queries) == 1
    assert values(found) == values(annotator) and found.project.language == "hr"
    assert values(mine) == values(response) and values(mine.item) == values(response.item)
    assert mine.assignment.annotator is found and values(mine.assignment) == values(assignment)
    assert mine.unit_progress == unit_state(assignment)[1:] == (1, 3)  # one of three items done
    stranger = AnnotatorFactory(project=annotator.project)
    assert annotator_with_response(stranger.access_key, response.pk)[0].pk == stranger.pk
    assert annotator_with_response(stranger.access_key, response.pk)[1] is None  # not theirs
    assert annotator_with_response(annotator.access_key, None)[1] is None
    assert annotator_with_response("no-such-key", response.pk) == (None, None)


needs_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")


@needs_postgres
def test_hot_reads_are_prepared_once_per_connection(started):
    annotator, _ = started
    work_state(annotator.access_key)
    connection._sqlrows_prepared.forget()  # as on a new connection: nothing prepared under these names
    with CaptureQueriesContext(connection) as queries:
        first = work_state(annotator.access_key)
        second = work_state(annotator.access_key)
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["PREPARE", "EXECUTE"]
    assert values(first.current) == values(second.current) and first.done == second.done


@needs_postgres
def test_a_failed_prepared_query_does_not_break_the_next(started):
    from annotation.sqlrows import fetch_all

    with pytest.raises(Exception), transaction.atomic():
        fetch_all("SELECT %s::int", ["not a number"], name="probe")  # PREPARE succeeds, EXECUTE fails
    with transaction.atomic():
        assert fetch_all("SELECT %s::int", ["5"], name="probe") == [(5,)]  # under a new name
        assert fetch_all("SELECT %s::int", ["6"], name="probe") == [(6,)]


@needs_postgres
def test_no_prepared_statements_behind_a_pooler(started, settings):
    from annotation.sqlrows import fetch_all

    annotator, _ = started
    connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] = True
    try:
        with CaptureQueriesContext(connection) as queries:
            fetch_all("SELECT %s::int", ["7"], name="pooled")
    finally:
        connection.settings_dict.pop("DISABLE_SERVER_SIDE_CURSORS")
    assert queries.captured_queries[0]["sql"].startswith("SELECT")


def test_update_row_compares_and_sets(started):
    annotator, assignment = started
    response = Response.objects.filter(assignment=assignment, completed_at__isnull=True).first()
    # a None compares with IS NULL; a stale value or a changed related row writes nothing
    assert update_row(Response, response.pk, {"timings": {"x": 1}}, unless_changed={"completed_at": None}) == 1
    assert update_row(Response, response.pk, {"timings": {"x": 2}}, unless_changed={"answers": {"stale": 1}}) == 0
    assert update_row(Response, response.pk, {"timings": {"x": 3}}, unless_changed={"answers": response.answers},
                      where_related=(Assignment, assignment.pk, {"status": Assignment.Status.SUBMITTED})) == 0
    assert update_row(Response, response.pk, {"timings": {"x": 4}}, unless_changed={"answers": response.answers},
                      where_related=(Assignment, assignment.pk, {"status": Assignment.Status.ACTIVE,
                                                                 "submitted_at": None})) == 1
    assert Response.objects.get(pk=response.pk).timings == {"x": 4}


def _instance_state(instance):
    return {**instance.__dict__, "_state": (instance._state.adding, instance._state.db, instance._state.fields_cache)}


@pytest.mark.parametrize("model_name", ["Annotator", "Project", "Batch", "Assignment", "Response", "Item"])
def test_a_row_becomes_the_instance_from_db_makes(started, model_name):
    """Columns.build makes its instances without Model.__init__: the same attributes and state."""
    from annotation import models
    from annotation.sqlrows import Columns, fetch_all

    model = getattr(models, model_name)
    columns = Columns(model, "t")
    pk = model.objects.order_by("pk").values_list("pk", flat=True).last()
    row = fetch_all(f"SELECT {columns.sql()} FROM {columns.table} t WHERE {columns.pk} = %s", [pk])[0]
    built = columns.build(row, 0)
    assert columns._plain  # the fast way was taken
    expected = model.objects.get(pk=pk)
    assert type(built) is model and _instance_state(built) == _instance_state(expected)
    built.save()  # an UPDATE, as for a read instance, not an INSERT
    assert model.objects.count() == model.objects.filter(pk__lte=pk).count()


def test_a_model_with_init_signal_receivers_is_built_through_init(started):
    from django.db.models.signals import post_init

    from annotation.sqlrows import Columns, fetch_all

    columns = Columns(Assignment, "s")
    row = fetch_all(f"SELECT {columns.sql()} FROM {columns.table} s", [])[0]
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=Assignment)
    try:
        built = columns.build(row, 0)
    finally:
        post_init.disconnect(receiver, sender=Assignment)
    assert seen == [built] and not built._state.adding
