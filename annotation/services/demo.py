"""The demo set-up a fresh machine gets: a researcher, and for ReCAM, for CoSimLex (Croatian) and
for SCDE (made-up passages) a project, a batch and an invite link; a Chinese GCRC project whose batch
has two annotators per item, handed out overlap first (the pair shares its units from the first
item, so the adjudicator has work after a few items each), with one invite link for each of the two
and one for the adjudicator; and two small ReCAM batches, one recruited on MTurk and one on
Prolific, to publish from the admin to the local MTurk- and Prolific-compatible endpoints that
``scripts/demo`` starts."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.models import Batch, InviteLink, Project

from .adjudication import adjudication_setup_set
from .batches import batch_create, invite_link_create
from .checks import check_lines, items_mark_checks
from .imports import items_import
from .projects import project_create
from .teams import team_ensure

DEMO_USERNAME = "researcher"
#: the demo's projects are this team's; the demo researcher is its member
DEMO_TEAM = "Demo team"
DEMO_PROJECT = "ReCAM demo"
DEMO_BATCH = "Demo batch"
DEMO_KIND = "recam"
COSIMLEX_DEMO_PROJECT = "CoSimLex demo (Croatian)"
GCRC_DEMO_PROJECT = "GCRC demo (Chinese)"
#: the paper's protocol: two annotators label every question independently; handed out overlap first
#: in units of five, the two share each unit, and an item both have done goes to the adjudicator
GCRC_DEMO_ANNOTATORS, GCRC_DEMO_ITEMS_PER_UNIT = 2, 5
#: made-up passages in SCDE's format (no SCDE data is shipped), one passage per unit as in the paper
SCDE_DEMO_PROJECT = "SCDE demo (made-up passages)"
MTURK_DEMO_BATCH = "MTurk demo batch"
#: two units of three labelled items, two workers each: $2.40 at the default $0.50 reward
MTURK_DEMO_ITEMS, MTURK_DEMO_ITEMS_PER_UNIT, MTURK_DEMO_WORKERS = 6, 3, 2
MTURK_DEMO_SETTINGS = {
    "title": "Answer reading questions about a news summary (demo)",
    "description": "Pick the missing word of a summary before and after reading the article, then copy "
    "the sentence that supports it. 3 short questions.",
    "keywords": "reading, comprehension, english, demo",
}
#: a ReCAM batch with a study file asking every step (consent, comprehension check, a practice
#: item, attention checks with live quality, exit survey), on an invite link
STUDY_DEMO_BATCH = "Study demo batch"
STUDY_DEMO_ITEMS, STUDY_DEMO_ITEMS_PER_UNIT, STUDY_DEMO_PEOPLE = 6, 3, 2
PROLIFIC_DEMO_BATCH = "Prolific demo batch"
#: the same shape as the MTurk demo: two units of three labelled items, two participants each
PROLIFIC_DEMO_PARTICIPANTS = 2
#: £1.50 for an honest 10 minutes (£9 an hour, above Prolific's floor); no approval-rate filter, so
#: any made-up participant of the local endpoint's simulator may take part
PROLIFIC_DEMO_SETTINGS = {
    "name": "Answer reading questions about a news summary (demo)",
    "description": "Pick the missing word of a summary before and after reading the article, then copy "
    "the sentence that supports it. 3 short questions.",
    "reward": "1.50",
    "estimated_minutes": 10,
    "min_approval_rate": None,
    "devices": ["desktop"],
}


@dataclass(frozen=True)
class DemoProject:
    project: Project
    batch: Batch
    invite: InviteLink
    items_created: int
    #: further links of the same batch (GCRC: one link per annotator)
    more_invites: tuple[InviteLink, ...] = ()


@dataclass(frozen=True)
class DemoSetup:
    username: str
    password: str
    project: Project
    batch: Batch
    invite: InviteLink
    items_created: int
    others: tuple[DemoProject, ...] = ()
    mturk_batch: Batch | None = None
    prolific_batch: Batch | None = None
    study: DemoProject | None = None


@dataclass(frozen=True)
class StudyFiles:
    """The study batch's files: the study file, its check items (in the kind's format, with ids)
    and their expected answers (what `mark_checks` reads)."""

    study: Path
    check_items: Path
    expected: Path


def demo_researcher_ensure(*, username: str = DEMO_USERNAME, password: str) -> AbstractBaseUser:
    """A superuser with this password; an existing one gets the password again, so what is
    printed always works (its hash cannot be shown back)."""
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        return user_model.objects.create_superuser(username=username, email="", password=password)
    user.is_staff = user.is_superuser = user.is_active = True
    user.set_password(password)
    user.save()
    return user


def demo_load(
    *,
    files: Sequence[Path],
    password: str | None = None,
    cosimlex_file: Path | None = None,
    gcrc_files: Sequence[Path] = (),
    scde_files: Sequence[Path] = (),
    mturk: bool = True,
    prolific: bool = True,
    study_files: StudyFiles | None = None,
) -> DemoSetup:
    """Create (or find again) everything the demo needs; running it twice changes nothing
    but the password, which is new each time unless one is given."""
    password = password or secrets.token_urlsafe(12)
    with transaction.atomic():
        user = demo_researcher_ensure(password=password)
        recam = _demo_project(user, DEMO_PROJECT, DEMO_KIND, "en", files, items_per_unit=3)
        others: tuple[DemoProject, ...] = ()
        if cosimlex_file is not None:
            others = (_demo_project(user, COSIMLEX_DEMO_PROJECT, "cosimlex", "hr", [cosimlex_file], items_per_unit=5),)
        if gcrc_files:
            others += (_demo_gcrc(user, gcrc_files),)
        if scde_files:
            others += (_demo_project(user, SCDE_DEMO_PROJECT, "scde", "en", scde_files, items_per_unit=1),)
        mturk_batch = (
            _demo_channel_batch(recam.project, MTURK_DEMO_BATCH, "mturk", MTURK_DEMO_WORKERS, MTURK_DEMO_SETTINGS)
            if mturk
            else None
        )
        prolific_batch = (
            _demo_channel_batch(
                recam.project, PROLIFIC_DEMO_BATCH, "prolific", PROLIFIC_DEMO_PARTICIPANTS, PROLIFIC_DEMO_SETTINGS
            )
            if prolific
            else None
        )
        study = _demo_study_batch(recam.project, study_files) if study_files is not None else None
    return DemoSetup(
        DEMO_USERNAME,
        password,
        recam.project,
        recam.batch,
        recam.invite,
        recam.items_created,
        others,
        mturk_batch,
        prolific_batch,
        study,
    )


def _demo_channel_batch(project: Project, name: str, channel: str, people: int, channel_settings: dict) -> Batch:
    """Labelled items only (the quality rules need gold), so the whole loop ends in a review."""
    found = project.batches.filter(name=name, channel=channel).order_by("id").first()
    if found is not None:
        return found
    items = list(project.items.data().filter(payload__has_key="label").order_by("id")[:MTURK_DEMO_ITEMS])
    return batch_create(
        project=project,
        name=name,
        items=items,
        items_per_unit=MTURK_DEMO_ITEMS_PER_UNIT,
        assignments_per_unit=people,
        channel=channel,
        channel_settings=dict(channel_settings),
    )


def _demo_study_batch(project: Project, files: StudyFiles) -> DemoProject:
    """The check items imported and marked (once: a marked item is never ordinary work), then a
    batch of labelled items whose study file asks every step, with an invite link."""
    created = items_import(project=project, data=files.check_items.read_bytes(), filename=files.check_items.name)
    if created.created:
        items_mark_checks(project=project, lines=check_lines(files.expected.read_text(encoding="utf-8")))
    batch = project.batches.filter(name=STUDY_DEMO_BATCH).order_by("id").first()
    if batch is None:
        items = list(project.items.data().filter(payload__has_key="label").order_by("-id")[:STUDY_DEMO_ITEMS])
        batch = batch_create(
            project=project,
            name=STUDY_DEMO_BATCH,
            items=sorted(items, key=lambda item: item.pk),
            items_per_unit=STUDY_DEMO_ITEMS_PER_UNIT,
            assignments_per_unit=STUDY_DEMO_PEOPLE,
            study=files.study.read_text(encoding="utf-8"),
        )
    invite = batch.invites.filter(active=True).order_by("id").first() or invite_link_create(batch=batch, label="study")
    return DemoProject(project, batch, invite, created.created)


def _demo_project(
    user,
    name: str,
    kind: str,
    language: str,
    files: Sequence[Path],
    *,
    items_per_unit: int,
    annotators: int = 3,
    handout: str = Batch.Handout.OVERLAP,
) -> DemoProject:
    team = team_ensure(name=DEMO_TEAM, members=[user])
    project = Project.objects.filter(name=name, kind=kind).order_by("id").first() or project_create(
        name=name, kind=kind, team=team, language=language, created_by=user
    )
    created = sum(items_import(project=project, data=path.read_bytes(), filename=path.name).created for path in files)
    batch = project.batches.filter(name=DEMO_BATCH).order_by("id").first() or batch_create(
        project=project,
        name=DEMO_BATCH,
        items_per_unit=items_per_unit,
        assignments_per_unit=annotators,
        handout=handout,
    )
    invite = batch.invites.filter(active=True).order_by("id").first() or invite_link_create(batch=batch, label="demo")
    return DemoProject(project, batch, invite, created)


def _demo_gcrc(user, files: Sequence[Path]) -> DemoProject:
    """GCRC's two expert annotators per item, each with a link of their own (one person each), and
    the third who resolves their disagreements: the batch's adjudication stage is on, with its link."""
    demo = _demo_project(
        user,
        GCRC_DEMO_PROJECT,
        "gcrc",
        "zh-hans",
        files,
        items_per_unit=GCRC_DEMO_ITEMS_PER_UNIT,
        annotators=GCRC_DEMO_ANNOTATORS,
        handout=Batch.Handout.OVERLAP,
    )
    links = list(demo.batch.invites.filter(active=True, role="annotator").order_by("id")[:GCRC_DEMO_ANNOTATORS])
    if len(links) == 1 and links[0].label == "demo":  # made by _demo_project: make it the first annotator's
        links[0].label, links[0].max_annotators = "annotator 1", 1
        links[0].save(update_fields=["label", "max_annotators"])
    while len(links) < GCRC_DEMO_ANNOTATORS:
        links.append(invite_link_create(batch=demo.batch, label=f"annotator {len(links) + 1}", max_annotators=1))
    adjudication_setup_set(batch=demo.batch)
    adjudicator = demo.batch.invites.filter(active=True, role="adjudicator").order_by(
        "id"
    ).first() or invite_link_create(batch=demo.batch, label="adjudicator", max_annotators=1, role="adjudicator")
    return DemoProject(demo.project, demo.batch, links[0], demo.items_created, (*links[1:], adjudicator))
