"""Projects from a task file through the REST API: `task_file` on create, its problems in DRF's
validation error format (one message per problem), and a PATCH of it through the service."""

import pytest
from rest_framework.test import APIClient

from annotation.kinds import TASK_FILE_KIND
from annotation.models import Project
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import ItemFactory, ProjectFactory, TeamFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    return TeamFactory()  # the deployment's only team: a superuser in no team gets it by default


@pytest.fixture
def api(team):
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    return client


def good_file() -> str:
    return data_file("task_files", "sentiment.yaml").read_text()


def without_title(text: str) -> str:
    return text.replace("title: Sentiment of product reviews\n", "")


def test_create_from_a_task_file(api, team):
    response = api.post("/api/projects/", {"name": "Reviews", "task_file": good_file()}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == TASK_FILE_KIND and body["task_file"] == good_file()
    project = Project.objects.get(pk=body["id"])
    assert project.kind == TASK_FILE_KIND and project.team == team


def test_a_bad_task_file_is_a_400_naming_each_problem(api):
    response = api.post("/api/projects/", {"name": "X", "task_file": without_title(good_file())}, format="json")
    assert response.status_code == 400
    problems = response.json()["task_file"]
    assert isinstance(problems, list) and problems and any("title" in p for p in problems)
    assert not Project.objects.exists()


@pytest.mark.parametrize(
    "body",
    [{"name": "X"}, {"name": "X", "kind": TASK_FILE_KIND}, {"name": "X", "task_file": ""}],
)
def test_a_project_needs_a_kind_or_a_task_file(api, body):
    response = api.post("/api/projects/", body, format="json")
    assert response.status_code == 400 and "kind" in response.json()
    assert not Project.objects.exists()


def test_a_kind_and_a_task_file_together_are_refused(api):
    response = api.post("/api/projects/", {"name": "X", "kind": "recam", "task_file": good_file()}, format="json")
    assert response.status_code == 400 and "kind" in response.json()


def test_a_task_file_must_be_a_string(api):
    response = api.post("/api/projects/", {"name": "X", "task_file": {"title": "x"}}, format="json")
    assert response.status_code == 400 and "task_file" in response.json()


def test_patch_of_the_words_goes_through(api, team):
    project = project_create(name="P", team=team, task_file=good_file())
    new = good_file().replace("How does the writer feel", "How does the author feel")
    response = api.patch(f"/api/projects/{project.pk}/", {"task_file": new, "name": "P2"}, format="json")
    assert response.status_code == 200, response.content
    project.refresh_from_db()
    assert project.task_file == new and project.name == "P2"


def test_patch_with_an_invalid_file_is_a_400_and_changes_nothing(api, team):
    project = project_create(name="P", team=team, task_file=good_file())
    response = api.patch(
        f"/api/projects/{project.pk}/", {"task_file": without_title(good_file()), "name": "P2"}, format="json"
    )
    assert response.status_code == 400 and "task_file" in response.json()
    project.refresh_from_db()
    assert project.task_file == good_file() and project.name == "P"


def test_patch_beyond_words_once_annotated_is_a_409_and_changes_nothing(api, team):
    project = project_create(name="P", team=team, task_file=good_file())
    ItemFactory(project=project, payload={"text": "Great.", "review_id": "r1"})
    batch = batch_create(project=project, name="b", items_per_unit=1)
    assignment_next(annotator=annotator_join_via_invite(invite=invite_link_create(batch=batch)), batch=batch)
    new = good_file().replace("          - {value: neutral, label: Neutral}\n", "")
    response = api.patch(f"/api/projects/{project.pk}/", {"task_file": new, "name": "P2"}, format="json")
    assert response.status_code == 409 and response.json()["detail"], response.content
    project.refresh_from_db()
    assert project.task_file == good_file() and project.name == "P"


def test_a_built_in_projects_task_file_cannot_be_set(api):
    project = ProjectFactory()
    response = api.patch(f"/api/projects/{project.pk}/", {"task_file": good_file()}, format="json")
    assert response.status_code == 409
    project.refresh_from_db()
    assert project.task_file == ""


def test_a_task_file_projects_kind_cannot_change(api, team):
    project = project_create(name="P", team=team, task_file=good_file())
    response = api.patch(f"/api/projects/{project.pk}/", {"kind": "recam"}, format="json")
    assert response.status_code == 409


def test_a_task_file_projects_quality_settings_are_accepted_and_another_kinds_refused(api, team):
    settings = {"min_gold_accuracy": 0.6, "too_fast_seconds": 4}
    response = api.post(
        "/api/projects/", {"name": "Reviews", "task_file": good_file(), "settings": settings}, format="json"
    )
    assert response.status_code == 201, response.content
    assert Project.objects.get(pk=response.json()["id"]).settings == settings
    foreign = api.post(
        "/api/projects/", {"name": "R2", "task_file": good_file(), "settings": {"min_accuracy": 0.4}}, format="json"
    )
    assert foreign.status_code == 409 and "min_accuracy" in foreign.json()["detail"]
