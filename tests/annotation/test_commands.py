"""Management commands and the periodic release task."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.admin.batches import BatchAdmin
from annotation.channels.prolific_settings import study_settings_for
from annotation.models import Assignment, Batch, InviteLink, Item, Project, Team
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from annotation.tasks import release_abandoned_assignments
from tests.conftest import data_file
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def run(*args, **options) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def test_create_project_prints_its_id():
    out = run("create_project", "--name", "Pilot", "--kind", "recam", "--language", "sl")
    project = Project.objects.get()
    assert f"Created project {project.pk}" in out and project.language == "sl"
    assert project.team.name == "Default team"  # the deployment had no team yet


def test_create_project_puts_the_project_in_the_named_or_only_team():
    run("create_project", "--name", "A", "--kind", "recam", "--team", "Lab A")
    run("create_project", "--name", "B", "--kind", "recam")
    assert {p.name: p.team.name for p in Project.objects.all()} == {"A": "Lab A", "B": "Lab A"}


def test_create_project_with_several_teams_asks_which_one():
    Team.objects.create(name="Lab A"), Team.objects.create(name="Lab B")
    with pytest.raises(CommandError, match="Several teams: say which one with --team \\(Lab A, Lab B\\)"):
        run("create_project", "--name", "X", "--kind", "recam")
    assert not Project.objects.exists()


def test_create_project_with_unknown_kind_names_the_known_ones():
    with pytest.raises(CommandError, match="known kinds: cosimlex, gcrc, recam"):
        run("create_project", "--name", "X", "--kind", "nope")
    assert not Team.objects.exists()


def test_import_items_counts_and_reimports_without_duplicates():
    project = ProjectFactory()
    path = str(data_file("recam", "Task_1_dev.sample.jsonl"))
    assert "20 new items imported, 0 already present" in run("import_items", project.pk, path)
    assert "0 new items imported, 20 already present" in run("import_items", project.pk, path)
    assert Item.objects.count() == 20


def test_import_problem_names_line_and_field_and_imports_nothing(tmp_path, recam_dev_bytes):
    lines = recam_dev_bytes.splitlines(keepends=True)
    record = json.loads(lines[2])
    record["question"] = record["question"].replace("@placeholder", "blank")
    lines[2] = json.dumps(record).encode() + b"\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    with pytest.raises(CommandError, match=r"line 3, field 'question'.*Nothing was imported"):
        run("import_items", ProjectFactory().pk, str(bad))
    assert not Item.objects.exists()


def test_import_items_missing_project_or_file(tmp_path):
    with pytest.raises(CommandError, match="no project with id 999"):
        run("import_items", 999, str(tmp_path / "x.jsonl"))
    with pytest.raises(CommandError, match="no such file"):
        run("import_items", ProjectFactory().pk, str(tmp_path / "x.jsonl"))


def test_create_batch_prints_an_invite_url(settings):
    settings.PUBLIC_BASE_URL = "https://annotate.example.org/"
    project = ProjectFactory()
    ItemFactory.create_batch(5, project=project)
    out = run(
        "create_batch",
        project.pk,
        "--name",
        "r1",
        "--items-per-unit",
        "2",
        "--annotators-per-item",
        "3",
        "--release-after-minutes",
        "15",
    )
    batch = Batch.objects.get()
    assert (batch.units.count(), batch.assignments_per_unit, batch.release_after_minutes) == (3, 3, 15)
    assert f"https://annotate.example.org/i/{InviteLink.objects.get().token}/" in out


def test_create_batch_without_items_fails_clearly():
    with pytest.raises(CommandError, match="import items"):
        run("create_batch", ProjectFactory().pk, "--name", "r1")


def test_release_abandoned_command_and_task():
    project = ProjectFactory()
    ItemFactory.create_batch(4, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, release_after_minutes=5)
    for _ in range(2):
        assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    stale = timezone.now() - timedelta(minutes=10)
    first, second = Assignment.objects.order_by("id")
    Assignment.objects.filter(pk=first.pk).update(last_activity_at=stale)
    assert "Released 1 abandoned" in run("release_abandoned", "--batch", batch.pk)
    Assignment.objects.filter(pk=second.pk).update(last_activity_at=stale)
    assert release_abandoned_assignments.delay().get() == 1
    assert release_abandoned_assignments() == 0  # idempotent


def test_load_demo_twice_is_idempotent_and_prints_working_credentials(settings):
    settings.PUBLIC_BASE_URL = "http://demo.test:8000"
    settings.MTURK_ENDPOINT, settings.MTURK_LOCAL_URL = "local", "http://127.0.0.1:8765"
    settings.PROLIFIC_API_URL = "http://127.0.0.1:8766"
    first = run("load_demo")
    second = run("load_demo", "--password", "s3cret-demo-pw")
    project = Project.objects.get(kind="recam")
    assert project.items.data().count() == 25  # and the study batch's four check items, marked
    checks = dict(project.items.filter(check_answer__isnull=False).values_list("external_id", "check_answer"))
    assert checks == {
        "check-practice": {"post_choice": 0},
        "check-blue": {"post_choice": 1},
        "check-seven": {"post_choice": 3},
        "check-river": {"post_choice": 4},
    }
    assert set(Project.objects.values_list("team__name", flat=True)) == {"Demo team"}
    assert list(project.team.members.values_list("username", flat=True)) == ["researcher"]
    assert "Team:        Demo team" in second
    cosimlex = Project.objects.get(kind="cosimlex")
    assert (cosimlex.language, cosimlex.items.count()) == ("hr", 60)
    assert Batch.objects.count() == 7 and InviteLink.objects.count() == 7  # GCRC: two annotators, an adjudicator
    study = Batch.objects.get(project=project, name="Study demo batch")
    assert (study.units.count(), study.assignments_per_unit, study.channel) == (2, 2, "invite")
    assert "consent:" in study.study and "stop_below: 0.5" in study.study
    assert not study.units.filter(unit_items__item__check_answer__isnull=False).exists()  # mixed in, not units
    study_invite = InviteLink.objects.get(batch=study)
    scde = Project.objects.get(kind="scde")
    assert (scde.name, scde.items.count()) == ("SCDE demo (made-up passages)", 5)
    assert scde.batches.get().items_per_unit == 1
    scde_invite = InviteLink.objects.get(batch__project=scde)
    batch = Batch.objects.get(project=project, channel="invite", name="Demo batch")
    mturk = Batch.objects.get(project=project, channel="mturk")
    assert (mturk.units.count(), mturk.assignments_per_unit) == (2, 2)
    assert all(
        "label" in item.payload for item in Item.objects.filter(unit_items__unit__batch=mturk)
    )  # gold for the quality rules before review
    prolific = Batch.objects.get(project=project, channel="prolific")
    assert (prolific.units.count(), prolific.assignments_per_unit) == (2, 2)
    study_settings_for(prolific)  # valid: the publish page would refuse invalid settings
    assert (batch.items_per_unit, batch.assignments_per_unit) == (3, 3)
    invite = InviteLink.objects.get(batch=batch)
    cosimlex_invite = InviteLink.objects.get(batch__project=cosimlex)
    gcrc = Project.objects.get(kind="gcrc")
    gcrc_batch = Batch.objects.get(project=gcrc)
    assert (gcrc.language, gcrc.items.count(), gcrc_batch.assignments_per_unit) == ("zh-hans", 40, 2)
    gcrc_invites = list(InviteLink.objects.filter(batch=gcrc_batch).order_by("id"))
    assert [(i.label, i.max_annotators, i.role) for i in gcrc_invites] == [
        ("annotator 1", 1, "annotator"),
        ("annotator 2", 1, "annotator"),
        ("adjudicator", 1, "adjudicator"),
    ]
    assert gcrc_batch.adjudication.enabled
    publish_label = BatchAdmin.publish_postings.short_description  # the admin's own label, as printed
    for out in (first, second):
        assert "http://demo.test:8000/admin/" in out and "Username:    researcher" in out
        assert f"http://demo.test:8000/i/{invite.token}/" in out
        assert f"http://demo.test:8000/i/{cosimlex_invite.token}/" in out and "CoSimLex demo (Croatian)" in out
        assert f"http://demo.test:8000/i/{scde_invite.token}/" in out and "SCDE demo (made-up passages)" in out
        assert (
            "tick it at http://demo.test:8000/admin/annotation/batch/ and run “Publish on the recruiting site (shows the cost first)”"
            in out
        )
        assert "MTurk workers: http://127.0.0.1:8765/worker/ (the local MTurk endpoint)" in out
        assert "GCRC demo (Chinese) (40 items)" in out
        # issue 38: the counts the admin shows (it lists the study's check items too)
        assert Item.objects.filter(project=project).count() == 29
    assert "ReCAM demo (29 items: 25 to annotate, 4 check items; 29 new)" in first
    assert "ReCAM demo (29 items: 25 to annotate, 4 check items; 0 new)" in second
    for out in (first, second):
        assert "Study batch: “Study demo batch” (ReCAM demo; consent, a comprehension check" in out
        assert f"http://demo.test:8000/i/{study_invite.token}/ (study)" in out
        assert (
            "Prolific batch: “Prolific demo batch” (2 units × 2 participants, one study): tick it at "
            f"http://demo.test:8000/admin/annotation/batch/ and run “{publish_label}”"
        ) in out
        assert "Prolific participants: http://127.0.0.1:8766/participant/ (the local Prolific endpoint" in out
        for link in gcrc_invites:
            assert f"http://demo.test:8000/i/{link.token}/ ({link.label})" in out
    user = get_user_model().objects.get(username="researcher")
    assert user.is_superuser and user.check_password("s3cret-demo-pw")
    printed = [line.split()[-1] for line in first.splitlines() if line.startswith("Password:")]
    assert printed and printed[0] != "s3cret-demo-pw"


def test_load_demo_password_from_environment(monkeypatch):
    monkeypatch.setenv("DEMO_PASSWORD", "from-the-env-1")
    out = run("load_demo", "--base-url", "https://x.example")
    assert "from-the-env-1" in out and "https://x.example/admin/" in out
    assert get_user_model().objects.get(username="researcher").check_password("from-the-env-1")


def test_load_demo_against_the_real_prolific_api_says_what_publishing_there_needs(settings):
    settings.PROLIFIC_API_URL = "https://api.prolific.com"
    out = run("load_demo", "--password", "pw")
    assert "Prolific endpoint: the real API (publishing there needs PROLIFIC_API_TOKEN" in out
    assert "/participant/" not in out


def test_create_batch_adaptive_settings_and_their_refusals(settings):
    from annotation.services.imports import items_import

    project = ProjectFactory()
    items_import(project=project, data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes(), filename="dev.jsonl")
    out = run(
        "create_batch",
        str(project.pk),
        "--name",
        "adaptive",
        "--items-per-unit",
        "1",
        "--adaptive",
        "--min-annotators",
        "2",
        "--max-annotators",
        "4",
        "--target-confidence",
        "0.98",
    )
    batch = Batch.objects.get(name="adaptive")
    assert "Created batch" in out and batch.adaptive and batch.slots_per_unit == 4
    assert (batch.min_annotators, batch.target_confidence, batch.min_competence) == (2, 0.98, None)
    with pytest.raises(CommandError, match="--max-annotators needs --adaptive"):
        run("create_batch", str(project.pk), "--name", "x", "--max-annotators", "4")
    with pytest.raises(CommandError, match=r"min_annotators \(5\) cannot be above max_annotators \(4\)"):
        run(
            "create_batch",
            str(project.pk),
            "--name",
            "x",
            "--adaptive",
            "--min-annotators",
            "5",
            "--max-annotators",
            "4",
        )
    with pytest.raises(CommandError, match="target_confidence must be between 0.5 and 0.9999, not 1.5"):
        run("create_batch", str(project.pk), "--name", "x", "--adaptive", "--target-confidence", "1.5")
    assert Batch.objects.count() == 1
