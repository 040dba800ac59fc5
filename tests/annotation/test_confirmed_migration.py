"""Migration 0019 holds apart work recorded before confirmation was kept: finished or released
work of a recruiting site (a channel assignment id) with no verified submission is unconfirmed;
verified work, work in progress and invite-link work stay as they were."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotation", "0018_overlap_handout_and_pilot")]
AFTER = [("annotation", "0019_trust_assignment_confirmed")]


@pytest.mark.django_db(transaction=True)
def test_finished_remote_work_without_a_verified_submission_is_held_apart():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    team = old.get_model("annotation", "Team").objects.create(name="lab")
    project = old.get_model("annotation", "Project").objects.create(name="old study", kind="recam", team=team)
    batch = old.get_model("annotation", "Batch").objects.create(project=project, name="b", channel="mturk")
    unit = old.get_model("annotation", "Unit").objects.create(batch=batch, position=0)
    annotator = old.get_model("annotation", "Annotator").objects.create(
        project=project, channel="mturk", external_id="A1"
    )
    make = old.get_model("annotation", "Assignment").objects.create
    verified = make(unit=unit, annotator=annotator, channel_assignment_id="V1", status="submitted")
    forged = make(unit=unit, annotator=annotator, channel_assignment_id="F1", status="submitted")
    working = make(unit=unit, annotator=annotator, channel_assignment_id="W1", status="active")
    invited = make(unit=unit, annotator=annotator, channel_assignment_id="", status="submitted")
    old.get_model("annotation", "Submission").objects.create(batch=batch, assignment=verified, ref="V1", verified=True)
    old.get_model("annotation", "Submission").objects.create(batch=batch, assignment=forged, ref="F1")

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("annotation", "Assignment")
    confirmed = dict(new.objects.values_list("pk", "confirmed"))
    assert confirmed == {verified.pk: True, forged.pk: False, working.pk: True, invited.pk: True}
    assert "next sync" in new.objects.get(pk=forged.pk).unconfirmed_reason

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
