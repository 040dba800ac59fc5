"""The demo set-up a fresh machine gets: a researcher, a ReCAM project, a batch and an invite."""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.models import Batch, InviteLink, Project

from .batches import batch_create, invite_link_create
from .imports import items_import
from .projects import project_create

DEMO_USERNAME = "researcher"
DEMO_PROJECT = "ReCAM demo"
DEMO_BATCH = "Demo batch"
DEMO_KIND = "recam"


@dataclass(frozen=True)
class DemoSetup:
    username: str
    password: str
    project: Project
    batch: Batch
    invite: InviteLink
    items_created: int


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


def demo_load(*, files: Sequence[Path], password: str | None = None) -> DemoSetup:
    """Create (or find again) everything the demo needs; running it twice changes nothing
    but the password, which is new each time unless one is given."""
    password = password or secrets.token_urlsafe(12)
    with transaction.atomic():
        user = demo_researcher_ensure(password=password)
        project = (
            Project.objects.filter(name=DEMO_PROJECT, kind=DEMO_KIND).order_by("id").first()
            or project_create(name=DEMO_PROJECT, kind=DEMO_KIND, created_by=user)
        )
        created = sum(
            items_import(project=project, data=path.read_bytes(), filename=path.name).created for path in files
        )
        batch = project.batches.filter(name=DEMO_BATCH).order_by("id").first() or batch_create(
            project=project, name=DEMO_BATCH, items_per_unit=3, assignments_per_unit=3
        )
        invite = batch.invites.filter(active=True).order_by("id").first() or invite_link_create(
            batch=batch, label="demo"
        )
    return DemoSetup(DEMO_USERNAME, password, project, batch, invite, created)
