"""Migration 0013 gives every existing assignment its item count: the number of its responses."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotation", "0012_adjudication_claimed_at")]
AFTER = [("annotation", "0013_assignment_item_count")]


@pytest.mark.django_db(transaction=True)
def test_existing_assignments_get_the_count_of_their_responses():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    project = old.get_model("annotation", "Project").objects.create(name="old study", kind="recam")
    batch = old.get_model("annotation", "Batch").objects.create(project=project, name="b")
    unit = old.get_model("annotation", "Unit").objects.create(batch=batch, position=0)
    items = [
        old.get_model("annotation", "Item").objects.create(project=project, external_id=str(n), payload={})
        for n in range(3)
    ]
    annotator_model, assignment_model = (
        old.get_model("annotation", "Annotator"),
        old.get_model("annotation", "Assignment"),
    )
    full = assignment_model.objects.create(
        unit=unit, annotator=annotator_model.objects.create(project=project, channel="invite", external_id="a")
    )
    empty = assignment_model.objects.create(
        unit=unit, annotator=annotator_model.objects.create(project=project, channel="invite", external_id="b")
    )
    for position, item in enumerate(items):
        old.get_model("annotation", "Response").objects.create(assignment=full, item=item, position=position)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("annotation", "Assignment")
    assert new.objects.get(pk=full.pk).item_count == 3
    assert new.objects.get(pk=empty.pk).item_count == 0

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
