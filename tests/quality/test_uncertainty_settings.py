"""The aggregation settings (issue 28): `aggregation_method` per label field or for all, and
`bootstrap_rounds`; a wrong value is refused where settings come in (API, admin, command line,
task file), each time naming what is known."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.api.fields import SettingsField
from annotation.kinds import (
    AGGREGATION_METHODS,
    AUTO,
    GENERIC_SETTINGS,
    MAX_BOOTSTRAP_ROUNDS,
    LabelField,
    TaskFileError,
    aggregation_methods,
    bootstrap_rounds,
    get_kind,
    known_settings,
    task_file_kind,
)
from annotation.kinds.results import column_label
from annotation.kinds.taskfile.loading import SCHEMA_PATH
from annotation.models import Project
from quality.models import QualityRun
from tests.conftest import data_file
from tests.factories import TeamFactory, UserFactory

FIELDS = [
    LabelField("choice", "nominal", column_label("choice")),
    LabelField("difficulty", "ordinal", column_label("difficulty")),
    LabelField("rating", "interval", column_label("rating")),
]
SENTIMENT = data_file("task_files", "sentiment.yaml").read_text()


def with_settings(text: str, settings: str) -> str:
    return text.replace("translations:\n", f"settings:\n{settings}translations:\n")


def test_defaults_are_generic_settings_every_kind_has() -> None:
    assert GENERIC_SETTINGS["aggregation_method"] == AUTO and GENERIC_SETTINGS["bootstrap_rounds"] == 200
    assert {"aggregation_method", "bootstrap_rounds"} <= set(known_settings())
    assert get_kind("recam").settings_for(None)["aggregation_method"] == "auto"


def test_one_method_for_all_or_one_per_field() -> None:
    assert aggregation_methods("auto", FIELDS) == {"choice": "auto", "difficulty": "auto"}
    assert aggregation_methods("mace", FIELDS) == {"choice": "mace", "difficulty": "mace"}
    assert aggregation_methods({"difficulty": "glad"}, FIELDS) == {"choice": "auto", "difficulty": "glad"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("vote", "unknown aggregation method(s) vote; known: auto, majority, dawid_skene, one_coin, mace, glad"),
        ({"choice": "DS"}, "unknown aggregation method(s) DS; known: auto"),
        ({"choise": "mace"}, "names unknown field(s) choise; aggregated fields: choice, difficulty"),
        ({"rating": "mace"}, "not aggregated: rating (interval); only nominal and ordinal fields are"),
        (3, "must be a method's name or an object of field -> method"),
    ],
)
def test_a_wrong_method_is_refused_naming_what_is_known(value, message) -> None:
    with pytest.raises(ValueError) as raised:
        aggregation_methods(value, FIELDS)
    assert message in str(raised.value)


def test_bootstrap_rounds_are_a_count_up_to_the_maximum() -> None:
    assert bootstrap_rounds(0) == 0 and bootstrap_rounds(200.0) == 200
    for wrong in (-1, MAX_BOOTSTRAP_ROUNDS + 1, 2.5, True, "200", None):
        with pytest.raises(ValueError, match="bootstrap_rounds"):
            bootstrap_rounds(wrong)


def test_a_kind_names_the_problems_of_its_settings() -> None:
    recam = get_kind("recam")
    assert recam.settings_problems({"aggregation_method": {"post_choice": "mace"}, "bootstrap_rounds": 50}) == []
    problems = recam.settings_problems({"aggregation_method": {"answer": "mace"}, "bootstrap_rounds": -5})
    assert len(problems) == 2 and "answer" in problems[0] and "post_choice" in problems[0]


def test_the_api_schema_lists_the_methods() -> None:
    field = SettingsField()
    assert field.to_internal_value({"aggregation_method": {"post_choice": "glad"}, "bootstrap_rounds": 0})
    for wrong in ({"aggregation_method": "vote"}, {"aggregation_method": {"x": 1}}, {"bootstrap_rounds": -1}):
        with pytest.raises(Exception) as raised:
            field.to_internal_value(wrong)
        assert "must be" in str(raised.value)
    schema = json.loads(SCHEMA_PATH.read_text())["$defs"]["aggregation_method"]["enum"]
    assert schema == [AUTO, *AGGREGATION_METHODS]  # the task file's schema lists the same methods
    rounds = json.loads(SCHEMA_PATH.read_text())["properties"]["settings"]["properties"]["bootstrap_rounds"]
    assert rounds["maximum"] == MAX_BOOTSTRAP_ROUNDS


def test_a_task_file_may_set_them_and_is_refused_a_wrong_one() -> None:
    kind = task_file_kind(with_settings(SENTIMENT, "  aggregation_method: {sentiment: mace}\n  bootstrap_rounds: 50\n"))
    assert kind.settings_for(None)["aggregation_method"] == {"sentiment": "mace"}
    with pytest.raises(TaskFileError, match="unknown field"):
        task_file_kind(with_settings(SENTIMENT, "  aggregation_method: {mood: mace}\n"))
    with pytest.raises(TaskFileError, match="aggregation_method"):
        task_file_kind(with_settings(SENTIMENT, "  aggregation_method: vote\n"))


@pytest.mark.django_db
def test_the_api_refuses_a_wrong_method_400_or_a_field_the_kind_lacks_409() -> None:
    TeamFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    bad = api.post(
        "/api/projects/", {"name": "R", "kind": "recam", "settings": {"aggregation_method": "vote"}}, format="json"
    )
    assert bad.status_code == 400 and "aggregation_method" in bad.json()["settings"]
    foreign = {"name": "R", "kind": "recam", "settings": {"aggregation_method": {"sentiment": "mace"}}}
    conflict = api.post("/api/projects/", foreign, format="json")
    assert conflict.status_code == 409 and "sentiment" in conflict.json()["detail"]
    good = {"name": "R", "kind": "recam", "settings": {"aggregation_method": {"post_choice": "mace"}}}
    assert api.post("/api/projects/", good, format="json").status_code == 201
    project = Project.objects.get()
    url = reverse("api-project-quality-runs", args=[project.pk])
    refused = api.post(url, {"settings": {"aggregation_method": {"rating": "mace"}}}, format="json")
    assert refused.status_code == 409 and "rating" in refused.json()["detail"]
    assert not QualityRun.objects.exists()


@pytest.mark.django_db
def test_the_command_line_refuses_a_wrong_method(annotated) -> None:
    with pytest.raises(CommandError, match="unknown aggregation method"):
        call_command("run_quality", str(annotated.project.pk), "--set", "aggregation_method=vote")
    with pytest.raises(CommandError, match="bootstrap_rounds"):
        call_command("run_quality", str(annotated.project.pk), "--set", "bootstrap_rounds=-2")
    assert not QualityRun.objects.exists()
    out = io.StringIO()
    setting = 'aggregation_method={"post_choice": "mace"}'
    call_command("run_quality", str(annotated.project.pk), "--set", setting, "--set", "bootstrap_rounds=0", stdout=out)
    run = QualityRun.objects.get()
    assert run.parameters["aggregation_method"] == {"post_choice": "mace"} and run.parameters["bootstrap_rounds"] == 0
    assert run.report["uncertainty"]["post_choice"]["method"] == "mace"


@pytest.mark.django_db
def test_the_admin_refuses_a_wrong_method(admin_client) -> None:
    team = TeamFactory()
    form = {
        "name": "R",
        "team": team.pk,
        "kind": "recam",
        "language": "en",
        "instructions": "",
        "settings": json.dumps({"aggregation_method": {"post_choice": "vote"}}),
    }
    page = admin_client.post(reverse("admin:annotation_project_add"), form)
    assert page.status_code == 200 and not Project.objects.exists()
    assert "Unknown aggregation method(s) vote" in page.content.decode()
