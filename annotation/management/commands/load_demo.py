"""manage.py load_demo [--password P] [--base-url URL] [--examples]"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from annotation.models import Batch, ModelConnection, ModelRun, Project
from annotation.selectors.batches import invite_url
from annotation.services.demo import DemoSetup, StudyFiles, demo_load
from annotation.services.demo_model import demo_model_ensure
from annotation.services.examples import examples_load

from ._common import add_base_url_argument, base_url

DEMO_FILES = ("Task_1_dev.sample.jsonl", "Task_1_test.sample.jsonl")
COSIMLEX_DEMO_FILE = "cosimlex_hr.sample.csv"
GCRC_DEMO_FILES = ("dev_GCRCadvrobust.sample.json", "test_public.sample.json")
#: made up for the tests in SCDE's format: SCDE's own data is not shipped
SCDE_DEMO_FILES = ("made_up.dev.json", "made_up.test.json")
#: the study batch's study file, check items and their expected answers (tests/fixtures/studies)
STUDY_FILE, STUDY_CHECKS, STUDY_EXPECTED = "demo_study.yaml", "demo_checks.jsonl", "demo_checks.expect.jsonl"


def _item_counts(demo: DemoSetup) -> str:
    """The project's items as the admin lists them: all of them, the work and the check items
    apart, and how many this run added (the study's check items too)."""
    items, work = demo.project.items.count(), demo.project.items.data().count()
    new = demo.items_created + (demo.study.items_created if demo.study else 0)
    checks = f", {items - work} check items" if items > work else ""
    return f"{items} items: {work} to annotate{checks}; {new} new"


class Command(BaseCommand):
    help = (
        "Set up the demo: a researcher superuser; a ReCAM project loaded from the sample data with a batch "
        "(3 items per unit, 3 annotators per item) and an invite link; and a Croatian CoSimLex project "
        "likewise (5 items per unit); a Chinese GCRC project (2 annotators per item, a link for each, and an adjudicator's link); an SCDE "
        "project on made-up passages (one passage per unit); and two ReCAM batches of 2 units, one recruited on MTurk "
        "and one on Prolific, to publish from the admin; a ReCAM study batch whose study file asks for consent, a "
        "comprehension check, a practice item, attention checks and an exit survey, with an invite link. With --examples, also a project for each "
        "example task file under examples/tasks/ (its dataset imported, 2 annotators per item, an invite link). "
        "Safe to run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--password",
            default=os.environ.get("DEMO_PASSWORD") or None,
            help="Password for the 'researcher' account (default: $DEMO_PASSWORD, else a new random one).",
        )
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=Path(settings.BASE_DIR) / "tests" / "fixtures" / "recam",
            help="Folder holding the ReCAM sample files.",
        )
        parser.add_argument(
            "--examples",
            action="store_true",
            help="Also load every example task file under examples/tasks/ as a project with a batch and an invite link.",
        )
        add_base_url_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        files = [options["data_dir"] / name for name in DEMO_FILES]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise CommandError(f"Sample data not found: {', '.join(missing)}")
        cosimlex = Path(settings.BASE_DIR) / "tests" / "fixtures" / "cosimlex" / COSIMLEX_DEMO_FILE
        gcrc = [Path(settings.BASE_DIR) / "tests" / "fixtures" / "gcrc" / name for name in GCRC_DEMO_FILES]
        scde = [Path(settings.BASE_DIR) / "tests" / "fixtures" / "scde" / name for name in SCDE_DEMO_FILES]
        studies = Path(settings.BASE_DIR) / "tests" / "fixtures" / "studies"
        study = StudyFiles(studies / STUDY_FILE, studies / STUDY_CHECKS, studies / STUDY_EXPECTED)
        demo = demo_load(
            files=files,
            password=options["password"],
            cosimlex_file=cosimlex if cosimlex.is_file() else None,
            gcrc_files=[path for path in gcrc if path.is_file()],
            scde_files=[path for path in scde if path.is_file()],
            study_files=study if all(p.is_file() for p in (study.study, study.check_items, study.expected)) else None,
        )
        base = base_url(options["base_url"])
        lines = [
            f"Demo project {demo.project.pk}: {demo.project.name} ({_item_counts(demo)})",
            f"Admin:       {base}{reverse('admin:index')}",
            f"Username:    {demo.username}",
            f"Password:    {demo.password}",
            f"Team:        {demo.project.team} (the researcher's; each team sees only its own projects)",
            f"Invite link: {invite_url(demo.invite.token, base_url=base)}",
        ]
        for other in demo.others:
            lines += [
                f"Demo project {other.project.pk}: {other.project.name} ({other.project.items.count()} items)",
                *(
                    f"Invite link: {invite_url(link.token, base_url=base)}"
                    + (f" ({link.label})" if other.more_invites else "")
                    for link in (other.invite, *other.more_invites)
                ),
            ]
        user = get_user_model().objects.get(username=demo.username)
        model_projects = [demo.project]
        if options["examples"]:
            for example in examples_load(team=demo.project.team, created_by=user):
                model_projects.append(example.project)
                lines += [
                    f"Example project {example.project.pk}: {example.project.name} "
                    f"({example.project.items.count()} items, from {example.example.task_file.parent.name}/)",
                    f"Invite link: {invite_url(example.invite.token, base_url=base)}",
                ]
        lines += model_lines(
            demo_model_ensure(
                team=demo.project.team, base_url=settings.LLM_LOCAL_URL, projects=model_projects, by=user
            ),
            model_projects,
            base,
        )
        if demo.study is not None:
            lines += [
                f"Study batch: “{demo.study.batch.name}” (ReCAM demo; consent, a comprehension check, a practice "
                "item with feedback, attention checks that stop a careless annotator, an exit survey)",
                f"Invite link: {invite_url(demo.study.invite.token, base_url=base)} (study)",
            ]
        if demo.mturk_batch is not None:
            lines += mturk_lines(demo.mturk_batch, base)
        if demo.prolific_batch is not None:
            lines += prolific_lines(demo.prolific_batch, base)
        self.stdout.write(self.style.SUCCESS("\n".join(lines)))


def model_lines(connection: ModelConnection, projects: list[Project], base: str) -> list[str]:
    """The "Run the model" step: each project's estimated run, and where to start it."""
    runs = ModelRun.objects.filter(connection=connection, project__in=projects).order_by("project_id", "-created_at")
    newest: dict[int, ModelRun] = {}
    for run in runs:
        newest.setdefault(run.project_id, run)
    lines = [
        f"Model:       {connection.name} at {connection.base_url} (the local model endpoint); to run it, tick a run "
        f"at {base}{reverse('admin:annotation_modelrun_changelist')} and run “Run the chosen models (shows the cost first)”"
    ]
    for project in projects:
        if (estimate := newest.get(project.pk)) is not None:
            lines.append(
                f"Model run:   {project.name}: {estimate.items_total} items, estimated cost "
                f"{estimate.estimated_cost:.4f} ({estimate.status})"
            )
    return lines


def mturk_lines(batch: Batch, base: str) -> list[str]:
    """Where to publish the MTurk batch, and where its workers go (the local endpoint's site)."""
    changelist = base + reverse("admin:annotation_batch_changelist")
    lines = [
        f"MTurk batch: “{batch.name}” ({batch.units.count()} HITs × {batch.assignments_per_unit} workers): "
        f"tick it at {changelist} and run “{PUBLISH_ACTION}”"
    ]
    if settings.MTURK_ENDPOINT == "local":
        lines.append(f"MTurk workers: {settings.MTURK_LOCAL_URL.rstrip('/')}/worker/ (the local MTurk endpoint)")
    else:
        lines.append(
            f"MTurk endpoint: {settings.MTURK_ENDPOINT} (publishing there needs AWS keys and an HTTPS PUBLIC_BASE_URL)"
        )
    return lines


#: the batch admin's publish action (one action for every recruiting channel; its confirmation page
#: shows the channel's own figures)
PUBLISH_ACTION = "Publish on the recruiting site (shows the cost first)"
REAL_PROLIFIC_HOST = "api.prolific.com"


def prolific_lines(batch: Batch, base: str) -> list[str]:
    """Where to publish the Prolific batch as a study, and where its participants go (the local
    endpoint's participant simulator, when the API URL is not Prolific's own)."""
    changelist = base + reverse("admin:annotation_batch_changelist")
    lines = [
        f"Prolific batch: “{batch.name}” ({batch.units.count()} units × {batch.assignments_per_unit} "
        f"participants, one study): tick it at {changelist} and run “{PUBLISH_ACTION}”"
    ]
    api = settings.PROLIFIC_API_URL.rstrip("/")
    if urlsplit(api).hostname == REAL_PROLIFIC_HOST:
        lines.append(
            "Prolific endpoint: the real API (publishing there needs PROLIFIC_API_TOKEN and an HTTPS PUBLIC_BASE_URL)"
        )
    else:
        lines.append(
            f"Prolific participants: {api}/participant/ (the local Prolific endpoint: pick the study; "
            "keep the participant id it offers, or give another 24-hex id)"
        )
    return lines
