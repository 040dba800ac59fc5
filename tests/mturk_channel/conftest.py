"""The MTurk channel against the local MTurk-compatible endpoint: a server per test, Django
settings pointed at it, MTurk batches, and workers who do the work as the surveys view would
record it (Annotator, Assignment with MTurk's assignmentId, completed Responses)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.utils import timezone

from annotation.models import Annotator, Assignment, Batch, Response, Unit
from annotation.mturk.local import LocalMTurkServer
from annotation.mturk.tokens import COMPLETION_FIELD, completion_token
from annotation.services.batches import batch_create
from tests.factories import ItemFactory, ProjectFactory
from tests.mturk.conftest import admin

BASE_URL = "https://annotate.example.org"


@pytest.fixture
def server():
    with LocalMTurkServer(balance="100.00") as running:
        yield running


@pytest.fixture
def mturk_settings(settings, server):
    """Django settings pointing the channel at this test's local endpoint."""
    settings.MTURK_ENDPOINT = "local"
    settings.MTURK_LOCAL_URL = server.url
    settings.MTURK_MAX_ATTEMPTS = 4
    return settings


def mturk_batch(
    *, units: int = 3, assignments: int = 3, channel_settings: dict | None = None, project=None, items_per_unit: int = 1
) -> Batch:
    project = project or ProjectFactory(name="Reading study")
    items = ItemFactory.create_batch(units * items_per_unit, project=project)
    return batch_create(
        project=project,
        name="round 1",
        items=items,
        items_per_unit=items_per_unit,
        assignments_per_unit=assignments,
        channel="mturk",
        channel_settings=channel_settings or {},
    )


def hit_rows(server) -> list[dict]:
    return [dict(r) for r in server.store.rows("SELECT * FROM hits ORDER BY created, id")]


@dataclass
class Work:
    assignment: Assignment | None  # ours (None: nothing saved on our side)
    mturk_id: str  # MTurk's assignmentId


def do_work(
    server,
    unit: Unit,
    worker_id: str,
    *,
    token: str | None = None,
    ours: bool = True,
    our_worker: str | None = None,
    our_id: str | None = None,
    complete: bool = True,
    submit: bool = True,
) -> Work:
    """A worker accepts the unit's HIT on the local endpoint; our page records an Assignment
    (as surveys' MTurk view does) and posts the completion token to externalSubmit.

    ``token``: what is posted (default: the genuine completion token); ``our_worker`` /
    ``our_id``: forge the worker id / assignment id our side recorded; ``ours=False``: nothing
    recorded on our side; ``complete=False``: the items were not all answered.
    """
    mturk_id = admin(server, "POST", "/_local/accept", {"hit_id": unit.channel_ref, "worker_id": worker_id})[
        "assignment_id"
    ]
    assignment = record_ours(unit, our_worker or worker_id, our_id or mturk_id, complete=complete) if ours else None
    if submit:
        value = completion_token(mturk_id) if token is None else token
        admin(server, "POST", "/_local/submit", {"assignment_id": mturk_id, "fields": {COMPLETION_FIELD: value}})
    return Work(assignment=assignment, mturk_id=mturk_id)


def record_ours(unit: Unit, worker_id: str, mturk_id: str, *, complete: bool = True) -> Assignment:
    annotator, _ = Annotator.objects.get_or_create(
        project=unit.batch.project, channel="mturk", external_id=worker_id, defaults={"batch": unit.batch}
    )
    now = timezone.now()
    assignment = Assignment.objects.create(
        unit=unit,
        annotator=annotator,
        channel_assignment_id=mturk_id,
        status=Assignment.Status.SUBMITTED if complete else Assignment.Status.ACTIVE,
        submitted_at=now if complete else None,
        confirmed=False,  # as the entry view leaves it: MTurk confirms it at sync
        unconfirmed_reason="MTurk confirms work at sync",
    )
    for unit_item in unit.unit_items.order_by("position"):
        Response.objects.create(
            assignment=assignment,
            item=unit_item.item,
            position=unit_item.position,
            answers={"pre": {"choice": 1}} if complete else {},
            completed_at=now if complete else None,
        )
    return assignment


def local_assignment(server, mturk_id: str) -> dict:
    return dict(server.store.row("SELECT * FROM assignments WHERE id = ?", (mturk_id,)))
