"""A project with something behind every URL: items, a batch with an invite link, a finished
quality run with its plots, a finished export job; and researchers of three kinds."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Permission

from annotation.models import Batch, InviteLink, Item, Project
from quality.models import ExportJob, QualityRun, RunPlot
from quality.services.exports import export_job_create
from quality.services.runs import quality_run_create
from tests.factories import UserFactory
from tests.quality.conftest import build_annotated_project


@dataclass
class World:
    project: Project
    item: Item
    batch: Batch
    invite: InviteLink
    run: QualityRun
    plot: RunPlot
    job: ExportJob


@pytest.fixture
def world(db, settings, tmp_path, recam_dev_bytes, django_capture_on_commit_callbacks) -> World:
    settings.EXPORT_ROOT = tmp_path / "exports"
    project = build_annotated_project(recam_dev_bytes).project
    run = quality_run_create(project=project)
    with django_capture_on_commit_callbacks(execute=True):
        job = export_job_create(project=project, dataset="raw", fmt="csv")
    batch = project.batches.get()
    return World(
        project=project,
        item=project.items.first(),
        batch=batch,
        invite=batch.invites.get(),
        run=run,
        plot=RunPlot.objects.filter(run=run).first(),
        job=job,
    )


def staff_with(*codenames: str, apps: tuple[str, ...] = ("annotation", "quality"), teams=()):
    """A staff user holding exactly these permissions of the project's apps ("view_" = every view
    one; "" = all of them), a member of `teams`."""
    user = UserFactory(is_staff=True)
    perms = Permission.objects.filter(content_type__app_label__in=apps)
    chosen = [
        p for p in perms if any(p.codename == c or (c.endswith("_") and p.codename.startswith(c)) for c in codenames)
    ]
    user.user_permissions.set(chosen)
    user.teams.set(teams)
    return user


@pytest.fixture
def no_perms(world):
    """In the world's team, so only the missing permissions stand in the way."""
    return staff_with(teams=[world.project.team])


@pytest.fixture
def viewer(world):
    return staff_with("view_", teams=[world.project.team])


@pytest.fixture
def superuser(db):
    return UserFactory(is_staff=True, is_superuser=True)
