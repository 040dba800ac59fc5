"""Migration 0021 keeps old batches valid: a Prolific batch's consent text (a channel setting until
then) becomes its study file's consent, and each recorded agreement the person's participation."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.studies import build

BEFORE = [("annotation", "0020_project_task_file")]
AFTER = [("annotation", "0021_study_file_and_participation")]
CONSENT = "Your answers are used for research on reading."


@pytest.mark.django_db(transaction=True)
def test_a_prolific_batchs_consent_and_its_agreements_move_into_the_study():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    team = old.get_model("annotation", "Team").objects.create(name="old team")
    project = old.get_model("annotation", "Project").objects.create(name="old study", kind="recam", team=team)
    batch_model = old.get_model("annotation", "Batch")
    asking = batch_model.objects.create(
        project=project, name="asks", channel="prolific", channel_settings={"reward": "2.00", "consent": CONSENT}
    )
    silent = batch_model.objects.create(project=project, name="plain", channel="invite", channel_settings={})
    unit = old.get_model("annotation", "Unit").objects.create(batch=asking, position=0)
    annotators = old.get_model("annotation", "Annotator").objects
    agreed = annotators.create(project=project, channel="prolific", external_id="a" * 24)
    undecided = annotators.create(project=project, channel="prolific", external_id="b" * 24)
    assignments = old.get_model("annotation", "Assignment").objects
    assignments.create(unit=unit, annotator=agreed, consented_at="2026-11-01T10:00:00Z", channel_assignment_id="s1")
    assignments.create(unit=unit, annotator=undecided, channel_assignment_id="s2")

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    batch = new.get_model("annotation", "Batch").objects.get(pk=asking.pk)
    assert batch.channel_settings == {"reward": "2.00"}
    assert json.loads(batch.study) == {"consent": {"text": CONSENT}} and build(batch.study).consent == CONSENT
    assert new.get_model("annotation", "Batch").objects.get(pk=silent.pk).study == ""
    participations = new.get_model("annotation", "Participation").objects
    assert list(participations.values_list("annotator_id", "consent")) == [(agreed.pk, "agreed")]
    assert not new.get_model("annotation", "Assignment").objects.filter(study_hold=True).exists()

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
