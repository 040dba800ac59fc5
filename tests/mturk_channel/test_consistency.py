"""A CoSimLex batch with a consistency set on MTurk: the every-annotator unit is not a HIT of its
own; its items lead each worker's first HIT of the batch (so every worker rates them first, as
with invite links), sync verifies them with the rest, and the cost page says so."""

from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.channels.base import INCOMPLETE
from annotation.models import Assignment, Item, PublishJob, Response, Submission
from annotation.mturk.tokens import COMPLETION_FIELD, completion_token
from annotation.services.batches import batch_create
from annotation.services.imports import items_import
from annotation.services.projects import consistency_set_choose
from annotation.services.publish import cost_estimate, publish_job_run
from annotation.services.sync import batch_sync
from tests.conftest import data_file
from tests.factories import ProjectFactory
from tests.mturk.conftest import admin

from .conftest import BASE_URL, hit_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(mturk_settings):
    project = ProjectFactory(kind="cosimlex", language="fi")
    items_import(project=project, data=data_file("cosimlex", "cosimlex_fi.sample.csv").read_bytes())
    consistency_set_choose(project=project, size=3, seed=11)
    return batch_create(project=project, name="fi on mturk", items_per_unit=3, assignments_per_unit=2, channel="mturk")


def consistency_ids(batch) -> list[str]:
    return list(batch.project.settings["consistency_items"])


def open_hit(server, unit, worker: str) -> Assignment:
    """Accept the unit's HIT on the endpoint and open it in the frame, as MTurk does."""
    mturk_id = admin(server, "POST", "/_local/accept", {"hit_id": unit.channel_ref, "worker_id": worker})[
        "assignment_id"
    ]
    query = {"assignmentId": mturk_id, "hitId": unit.channel_ref, "workerId": worker, "turkSubmitTo": server.url}
    opened = Client().get(reverse("surveys:mturk") + "?" + urlencode(query))
    assert opened.status_code == 302, opened.content
    return Assignment.objects.get(channel_assignment_id=mturk_id)


def groups(unit) -> set[str]:
    return set(unit.items.values_list("group_key", flat=True))


def external_ids(assignment: Assignment) -> list[str]:
    return list(assignment.responses.order_by("position").values_list("item__external_id", flat=True))


def test_the_consistency_unit_is_no_hit_and_leads_each_workers_first_hit(batch, server):
    regular = list(batch.units.filter(every_annotator=False).order_by("position"))
    assert batch.units.filter(every_annotator=True).count() == 1 and len(regular) == 6  # 18 of 24 items

    estimate = cost_estimate(batch=batch, with_balance=False)
    assert (estimate.units, estimate.lead_items) == (6, 3)
    job = publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=0))
    assert (job.status, job.done, job.total) == ("done", 6, 6)
    assert len(hit_rows(server)) == 6 and not batch.units.get(every_annotator=True).channel_ref
    for unit in regular:
        unit.refresh_from_db()

    lead = consistency_ids(batch)
    first_unit = regular[0]
    second_unit = next(u for u in regular[1:] if not groups(u) & groups(first_unit))  # no other context of a pair
    first = open_hit(server, first_unit, "A1FIRSTWORKER")
    own = list(first_unit.items.order_by("unit_items__position").values_list("external_id", flat=True))
    assert external_ids(first) == lead + own  # the consistency set first, then the HIT's own items
    again = open_hit(server, second_unit, "A1FIRSTWORKER")  # the same worker's second HIT: no repeat
    assert external_ids(again) == list(
        second_unit.items.order_by("unit_items__position").values_list("external_id", flat=True)
    )
    other = open_hit(server, second_unit, "A1OTHERWORKER")  # another worker's first HIT
    assert external_ids(other)[:3] == lead and len(external_ids(other)) == 6
    ratings = Response.objects.filter(item__external_id__in=lead).values_list(
        "assignment__annotator__external_id", flat=True
    )
    assert sorted(ratings) == sorted(["A1FIRSTWORKER", "A1OTHERWORKER"] * 3)


def test_sync_verifies_the_consistency_answers_with_the_rest(batch, server):
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=0))
    unit = batch.units.filter(every_annotator=False).order_by("position").first()
    unit.refresh_from_db()
    done = open_hit(server, unit, "A1CAREFUL")
    skipped = open_hit(server, unit, "A1HASTY")
    now = timezone.now()
    Response.objects.filter(assignment=done).update(completed_at=now)
    # the hasty worker answered the HIT's own items but not the consistency items before them
    Response.objects.filter(assignment=skipped).exclude(item__external_id__in=consistency_ids(batch)).update(
        completed_at=now
    )
    for assignment in (done, skipped):
        admin(
            server,
            "POST",
            "/_local/submit",
            {
                "assignment_id": assignment.channel_assignment_id,
                "fields": {COMPLETION_FIELD: completion_token(assignment.channel_assignment_id)},
            },
        )
    report = batch_sync(batch=batch)
    assert (report.verified, report.flagged) == (1, 1)
    assert Submission.objects.get(assignment=done).verified
    flagged = Submission.objects.get(assignment=skipped)
    assert (flagged.verified, flagged.problem) == (False, INCOMPLETE)


def test_the_cost_page_says_the_first_hit_is_longer(admin_client, batch, server):
    page = admin_client.post(
        reverse("admin:annotation_batch_changelist"), {"action": "publish_postings", "_selected_action": [batch.pk]}
    )
    html = " ".join(page.content.decode().split())
    assert "also holds its 3 consistency items, before the unit's own" in html
    assert "<td>6</td><td>2</td>" in html  # 6 HITs of 2 assignments, the consistency unit not among them
    assert Item.objects.filter(project=batch.project).count() == 24
    change = " ".join(
        admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])).content.decode().split()
    )
    assert "0 of 6 units published as HITs." in change
    assert "The 3 consistency items come first in each worker's first unit." in change
