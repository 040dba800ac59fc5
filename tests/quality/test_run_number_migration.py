"""Migration quality 0008 numbers each project's existing runs 1, 2, ... in the order they were made."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("quality", "0007_prediction_score"), ("annotation", "0026_final_label_reasons_as_shown")]
AFTER = [("quality", "0008_run_number")]


@pytest.mark.django_db(transaction=True)
def test_existing_runs_are_numbered_per_project():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    project_model, run_model = old.get_model("annotation", "Project"), old.get_model("quality", "QualityRun")
    team = old.get_model("annotation", "Team").objects.create(name="old team")
    recam = project_model.objects.create(name="recam", kind="recam", team=team)
    gcrc = project_model.objects.create(name="gcrc", kind="gcrc", team=team)
    runs = [run_model.objects.create(project=project) for project in (recam, gcrc, recam, gcrc, recam)]

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps.get_model("quality", "QualityRun")
    assert [new.objects.get(pk=run.pk).number for run in runs] == [1, 1, 2, 2, 3]

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
