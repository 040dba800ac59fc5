"""The Prolific channel against the local Prolific-compatible endpoint: a server per test,
Django settings pointed at it, Prolific batches, and participants who take a place on the local
endpoint (its participant simulator, with cookies) and do the work on the platform's pages
(Django's test client), coming back to the endpoint's completion page with the code."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from annotation.models import Batch, Response
from annotation.prolific.local import LocalProlificServer
from annotation.services.batches import batch_create
from tests.factories import ItemFactory, ProjectFactory
from tests.prolific.conftest import Browser, admin
from tests.surveys.test_recam_flow import answer_for, form_fields

BASE_URL = "https://annotate.example.org"


@pytest.fixture
def server():
    with LocalProlificServer(balance=1_000_000) as running:
        yield running


@pytest.fixture
def prolific_settings(settings, server):
    """Django settings pointing the channel at this test's local endpoint."""
    settings.PROLIFIC_API_URL = server.url
    settings.PROLIFIC_API_TOKEN = server.token
    settings.PROLIFIC_COMPLETION_URL = server.completion_url
    return settings


def prolific_batch(*, units: int = 3, assignments: int = 2, channel_settings: dict | None = None) -> Batch:
    project = ProjectFactory(name="Reading study", kind="recam")
    items = ItemFactory.create_batch(units, project=project)
    return batch_create(
        project=project,
        name="round 1",
        items=items,
        items_per_unit=1,
        assignments_per_unit=assignments,
        channel="prolific",
        channel_settings=channel_settings or {"min_approval_rate": None},
    )


def local_path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def pid(name: str) -> str:
    """A participant id in Prolific's form (24 hex characters) for a name the test reads better
    ("KEPT"); the same name gives the same id, an id in that form is itself."""
    if re.fullmatch(r"[0-9a-f]{24}", name):
        return name
    return hashlib.sha256(name.encode()).hexdigest()[:24]


def open_study(server, study_id: str, name: str) -> tuple[Browser, str]:
    """The participant ``pid(name)`` takes a place on the simulator: (their browser there, the study URL)."""
    prolific_side = Browser(server.url)
    started = prolific_side.get(f"/participant/start?study_id={study_id}&participant_id={pid(name)}")
    assert started.status in (302, 303), started.text
    return prolific_side, started.location


def answer_all(platform: Client, work: str) -> str:
    """Answer every page of the work link; the URL the last save leads to (the completion URL)."""
    for _ in range(50):
        page = platform.get(work)
        if page.status_code == 302:
            return page["Location"]
        assert page.status_code == 200, page.content[:500]
        fields = form_fields(page.content.decode())
        item = Response.objects.select_related("item").get(pk=fields["response"]).item
        assert platform.post(work, {**fields, **answer_for(fields["page"], item)}).status_code == 302
    raise AssertionError("the unit never ended")


def take_part(server, study_id: str, name: str, *, finish: bool = True) -> dict:
    """The participant ``pid(name)`` does a unit: simulator -> our study URL -> our pages -> back with the code."""
    prolific_side, study_url = open_study(server, study_id, name)
    platform = Client()
    opened = platform.get(local_path(study_url))
    assert opened.status_code == 302, opened.content[:300]
    work = opened["Location"]
    result = {
        "study_url": study_url,
        "work": work,
        "platform": platform,
        "prolific_side": prolific_side,
        "session": study_url.split("SESSION_ID=")[1],
    }
    if finish:
        completion = answer_all(platform, work)
        result["completion"] = completion
        landed = prolific_side.get(completion)
        assert landed.status == 200, landed.text
        result["landed"] = landed.text
    return result


def submission_row(server, session: str) -> dict:
    return dict(server.store.submission_row(session))


__all__ = ["admin", "pid"]
