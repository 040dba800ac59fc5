"""Issue 37: a task or study file that would expand, recurse or overflow is refused with a 400 (or
a command error) naming its line and key path, by the API, the admin and the command."""

from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Batch, Project
from annotation.studies.spec import StudyFileError, build
from tests.factories import ItemFactory, ProjectFactory, TeamFactory, UserFactory
from tests.security.hostile import HOSTILE_TASK_FILES

pytestmark = pytest.mark.django_db
CASES = pytest.mark.parametrize("text,expected", HOSTILE_TASK_FILES.values(), ids=HOSTILE_TASK_FILES.keys())


@pytest.fixture
def api():
    TeamFactory()
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    return client


@CASES
def test_the_api_answers_400_naming_line_and_key(api, text, expected):
    response = api.post("/api/projects/", {"name": "X", "task_file": text}, format="json")
    assert response.status_code == 400, response.content[:300]
    assert any(expected in problem for problem in response.json()["task_file"]), response.json()
    assert not Project.objects.exists()


@CASES
@pytest.mark.parametrize("field", ["task_file_text", "task_file_upload"])
def test_the_admin_shows_the_refusal_on_the_field(admin_client, admin_user, text, expected, field):
    team = TeamFactory(members=[admin_user])
    value = SimpleUploadedFile("t.yaml", text.encode()) if field.endswith("upload") else text
    data = {"name": "X", "team": team.pk, "kind": "", "language": "en", "settings": "{}", field: value}
    response = admin_client.post(reverse("admin:annotation_project_add"), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors.get(field, [])
    assert any(expected in e for e in errors), errors
    assert not Project.objects.exists()


@CASES
def test_the_command_is_a_command_error_naming_line_and_key(tmp_path, text, expected):
    path = tmp_path / "task.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command("create_project", "--name", "X", "--task", str(path), "--team", "Lab", stdout=StringIO())
    assert expected in str(raised.value)
    assert not Project.objects.exists()


@CASES
def test_a_study_file_is_refused_alike(text, expected):
    with pytest.raises(StudyFileError) as raised:
        build(text)
    assert expected in str(raised.value)


def test_the_api_refuses_a_study_file_bomb_with_a_400(api):
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    text, expected = HOSTILE_TASK_FILES["alias bomb"]
    response = api.post("/api/batches/", {"project": project.pk, "name": "b", "study": text}, format="json")
    assert response.status_code == 400 and expected in str(response.json()), response.json()
    assert not Batch.objects.exists()


@pytest.mark.parametrize(
    "body,expected",
    [
        ('{"name": "X", "settings": ' + "[" * 20_000 + "]" * 20_000 + "}", "line 1, settings: nested more than 64"),
        ('{"name": "X",\n "settings": {"a": NaN}}', "line 2, settings.a: NaN: NaN is not a finite number"),
        ('{"name": "X", "settings": {"a": 1e309}}', "settings.a: 1e309: Infinity is not a finite number"),
        ('{"name": "X", "settings": {"a": ' + "9" * 5000 + "}}", "settings.a: 99999999999999999999…: an integer"),
    ],
    ids=["deep", "NaN", "1e309", "5000 digits"],
)
def test_an_api_body_is_read_by_the_same_rules(api, body, expected):
    response = api.post("/api/projects/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert expected in response.json()["detail"], response.json()
    assert not Project.objects.exists()


def test_an_api_body_over_the_limit_is_a_413_before_it_is_parsed(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = api.post("/api/projects/", '{"name": "' + "x" * 2000 + '"}', content_type="application/json")
    assert response.status_code == 413 and "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["detail"]


SLIDER = """title: Rate
item:
  required: [text]
  show:
    - key: text
pages:
  - id: rate
    questions:
      - id: score
        type: slider
        prompt: How good?
        min: {min}
        max: {max}
        step: {step}
"""


@pytest.mark.parametrize(
    "values,expected",
    [
        (
            {"min": 0, "max": 10, "step": 0},
            "line 14, pages[0].questions[0].step: 0 is less than or equal to the minimum of 0",
        ),
        ({"min": 0, "max": 10, "step": 11}, "step is wider than the slider"),
        (
            {"min": -1e16, "max": 10, "step": 1},
            "line 12, pages[0].questions[0].min: -1e+16 is less than the minimum of -1",
        ),
        (
            {"min": 0, "max": ".inf", "step": 1},
            "line 13, pages[0].questions[0].max: .inf (Infinity) is not a finite number",
        ),
        (
            {"min": 0, "max": 10, "step": ".nan"},
            "line 14, pages[0].questions[0].step: .nan (NaN) is not a finite number",
        ),
    ],
    ids=["step 0", "step wider", "min beyond 1e15", "max .inf", "step .nan"],
)
def test_a_sliders_numbers_are_finite_and_its_step_fits(api, values, expected):
    from annotation.kinds.taskfile import TaskFileError
    from annotation.kinds.taskfile.spec import build as spec_of_text

    with pytest.raises(TaskFileError) as raised:
        spec_of_text(SLIDER.format(**values))
    assert expected in str(raised.value)
    response = api.post("/api/projects/", {"name": "X", "task_file": SLIDER.format(**values)}, format="json")
    assert response.status_code == 400 and any(expected in p for p in response.json()["task_file"])


def test_a_slider_within_the_rules_is_a_task():
    from annotation.kinds.taskfile.spec import build as spec_of_text

    assert spec_of_text(SLIDER.format(min=-5, max=5, step=0.5)).title == "Rate"
