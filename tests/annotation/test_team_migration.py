"""The data migration of teams: projects made before teams go to one "Default team" whose members
are every staff account, so nobody loses the access they had (every staff user saw every project)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotation", "0015_teams_team")]


@pytest.mark.django_db(transaction=True)
def test_projects_before_teams_go_to_a_default_team_of_every_staff_account():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    users = old.get_model("auth", "User")
    staff = users.objects.create(username="old-staff", is_staff=True)
    users.objects.create(username="old-annotator")
    old.get_model("annotation", "Project").objects.create(name="old study", kind="recam", created_by=staff)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from annotation.models import Project

    project = Project.objects.get(name="old study")
    assert project.team.name == "Default team"
    assert list(project.team.members.values_list("username", flat=True)) == ["old-staff"]
