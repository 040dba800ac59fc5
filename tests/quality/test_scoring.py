"""The generic scorer hook (`TaskKind.scorers()`): `manage.py score` and the scores API run any
kind's scorer, name the known ones when asked for another, and check the options; the figures
of each scorer are checked in its kind's tests (test_cosimlex_quality, gcrc/test_score_command)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.kinds import ScoreProblem, Upload, get_kind
from quality.scoring import score_run
from tests.conftest import data_file
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

RELEASE = "cosimlex_hr.sample.csv"


def test_command_names_the_kinds_scorers_when_the_scorer_is_unknown():
    with pytest.raises(CommandError, match="unknown scorer 'nope'.*known scorers: semeval2020, table1"):
        call_command("score", "cosimlex", "nope")
    recam = ProjectFactory(kind="recam")
    with pytest.raises(CommandError, match="known scorers: none"):
        call_command("score", str(recam.pk), "table1")


def test_command_refuses_an_unknown_target_and_a_missing_or_unknown_option(tmp_path):
    with pytest.raises(CommandError, match="unknown task kind 'nokind'.*known kinds: .*cosimlex"):
        call_command("score", "nokind", "table1")
    with pytest.raises(CommandError, match="no project with id 987654"):
        call_command("score", "987654", "table1")
    with pytest.raises(CommandError, match="--gold"):
        call_command("score", "gcrc", "ccl2022", "--pred", str(tmp_path / "p.json"))
    with pytest.raises(CommandError, match="unrecognized arguments: --subtask9"):
        call_command("score", "cosimlex", "table1", "--subtask9", "x")
    with pytest.raises(CommandError, match="give at least one release file, or name a project"):
        call_command("score", "cosimlex", "table1")


def test_a_project_id_picks_its_kinds_scorers_and_a_project_without_a_run_is_reported(capsys):
    project = ProjectFactory(kind="cosimlex")
    with pytest.raises(CommandError, match="no finished quality run yet"):
        call_command("score", str(project.pk), "table1")
    with pytest.raises(CommandError, match="no finished quality run yet"):
        call_command("score", str(project.pk), "table1", "--release", str(data_file("cosimlex", RELEASE)))
    assert capsys.readouterr().out == ""  # a report is whole or not printed


def test_table1_of_several_release_files_as_json(capsys, tmp_path):
    release = data_file("cosimlex", RELEASE).read_bytes()
    (tmp_path / "first.csv").write_bytes(release)
    (tmp_path / "second.csv").write_bytes(release)
    call_command(
        "score",
        "cosimlex",
        "table1",
        "--release",
        str(tmp_path / "first.csv"),
        "--release",
        str(tmp_path / "second.csv"),
        "--json",
    )
    rows = json.loads(capsys.readouterr().out)
    assert list(rows) == ["first.csv", "second.csv"] and rows["first.csv"] == rows["second.csv"]
    assert rows["first.csv"]["n_pairs"] == 30
    assert 0 <= rows["first.csv"]["share_p_below_0_05"] <= rows["first.csv"]["share_p_below_0_1"] <= 1


def test_score_run_checks_options_before_scoring():
    kind = get_kind("gcrc")
    with pytest.raises(ScoreProblem, match="unknown option 'answers'; this scorer takes: pred, gold"):
        score_run(kind=kind, scorer="ccl2022", project=None, options={"answers": None})
    broken = Upload("pred.json", b"\xff\xfe")
    with pytest.raises(ScoreProblem, match="pred.json: not UTF-8"):
        score_run(kind=kind, scorer="ccl2022", project=None, options={"pred": broken, "gold": broken})


def test_api_lists_the_projects_scorers_with_their_options(client):
    project = ProjectFactory(kind="gcrc")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    listed = client.get(reverse("api-project-scorers", args=[project.pk])).json()
    assert [s["name"] for s in listed] == ["ccl2022"]
    assert [(o["name"], o["file"], o["required"]) for o in listed[0]["options"]] == [
        ("pred", True, True),
        ("gold", True, True),
    ]
    recam = ProjectFactory(kind="recam")
    assert client.get(reverse("api-project-scorers", args=[recam.pk])).json() == []


def test_api_runs_a_scorer_and_refuses_unknown_scorers_and_fields(client):
    project = ProjectFactory(kind="gcrc")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    sample = data_file("gcrc", "dev_GCRCadvrobust.sample.json").read_bytes()
    url = reverse("api-project-score", args=[project.pk, "ccl2022"])
    ok = client.post(url, {"pred": io.BytesIO(sample), "gold": io.BytesIO(sample)})
    assert ok.status_code == 200 and ok.json()["Task1_Acc"] == 1.0 and ok.json()["questions"] == 10
    unknown = client.post(reverse("api-project-score", args=[project.pk, "table1"]), {})
    assert unknown.status_code == 404 and "known scorers: ccl2022" in unknown.json()["detail"]
    extra = client.post(url, {"pred": io.BytesIO(sample), "gold": io.BytesIO(sample), "weights": "1"})
    assert extra.status_code == 400 and "unknown option 'weights'" in extra.json()["detail"]
    as_text = client.post(url, {"pred": "not a file", "gold": io.BytesIO(sample)})
    assert as_text.status_code == 400 and "'pred' must be an uploaded file" in as_text.json()["detail"]
    missing = client.post(url, {"pred": io.BytesIO(sample)})
    assert missing.status_code == 400 and "'gold' is required" in missing.json()["detail"]


def test_api_table1_of_uploaded_release_files(client):
    project = ProjectFactory(kind="cosimlex")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    release = data_file("cosimlex", RELEASE).read_bytes()
    first, second = io.BytesIO(release), io.BytesIO(release)
    first.name, second.name = "a.csv", "b.csv"
    url = reverse("api-project-score", args=[project.pk, "table1"])
    early = client.post(url, {"release": [first, second]})
    assert early.status_code == 409 and "quality run" in early.json()["detail"]
    recam = ProjectFactory(kind="recam")
    none = client.post(reverse("api-project-score", args=[recam.pk, "table1"]), {})
    assert none.status_code == 404 and "known scorers: none" in none.json()["detail"]


def test_api_needs_staff(client):
    project = ProjectFactory(kind="gcrc")
    client.force_login(UserFactory(is_staff=False))
    assert client.get(reverse("api-project-scorers", args=[project.pk])).status_code == 403
    assert client.post(reverse("api-project-score", args=[project.pk, "ccl2022"]), {}).status_code == 403
