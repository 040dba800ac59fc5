"""manage.py create_project --task FILE: a project made from a task file; a bad file prints its
problems and makes nothing (no project, no team)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.kinds import TASK_FILE_KIND
from annotation.models import Project, Team
from tests.conftest import data_file

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_a_task_file_makes_a_project_of_its_kind():
    path = data_file("task_files", "sentiment.yaml")
    out = run("create_project", "--name", "Reviews", "--task", str(path), "--team", "Lab A", "--language", "de")
    project = Project.objects.get()
    assert f"Created project {project.pk}" in out
    assert project.kind == TASK_FILE_KIND and project.task_file == path.read_text()
    assert project.team.name == "Lab A" and project.language == "de"


def test_a_bad_task_file_prints_its_problems_and_makes_nothing(tmp_path):
    text = data_file("task_files", "sentiment.yaml").read_text().replace("title: Sentiment of product reviews\n", "")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(CommandError) as raised:
        run("create_project", "--name", "X", "--task", str(bad), "--team", "Lab A")
    message = str(raised.value)
    assert "bad.yaml is not a valid task file; nothing was created" in message and "title" in message
    assert not Project.objects.exists() and not Team.objects.exists()


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CommandError, match="Cannot read the task file"):
        run("create_project", "--name", "X", "--task", str(tmp_path / "nope.yaml"))
    assert not Project.objects.exists()


def test_kind_and_task_are_one_or_the_other():
    path = str(data_file("task_files", "sentiment.yaml"))
    with pytest.raises(CommandError, match="not allowed with argument"):
        run("create_project", "--name", "X", "--kind", "recam", "--task", path)
    with pytest.raises(CommandError, match="one of the arguments --kind --task is required"):
        run("create_project", "--name", "X")
