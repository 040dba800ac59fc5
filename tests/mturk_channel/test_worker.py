"""Publish and sync in a real Celery worker process; a worker killed in the middle of
publishing, and the watchdog's re-run that ends with every unit published exactly once."""

import os
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from annotation.models import Posting, PublishJob, Submission
from annotation.services.publish import publish_watchdog
from tests.worker import broker_reachable

from .conftest import BASE_URL, do_work, hit_rows, mturk_batch
from .workers import mturk_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

if not broker_reachable():
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise RuntimeError("the Celery test broker is not reachable (CELERY_TEST_BROKER_URL)")
    pytestmark.append(pytest.mark.skip(reason="no Celery broker on 127.0.0.1:6379"))


def wait_for(condition, timeout: float = 60, step: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)


def test_worker_publishes_and_syncs(mturk_settings, server, tmp_path):
    from annotation.tasks import publish_batch, sync_open_batches

    batch = mturk_batch(units=3, assignments=2)
    job = PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=3)
    with mturk_worker(server.url, tmp_path) as worker:
        result = publish_batch.apply_async(args=[job.pk], queue=worker.queue).get(timeout=90)
        assert result == {"job": job.pk, "status": "done", "done": 3, "total": 3, "failed": 0}
        assert len(hit_rows(server)) == 3 and Posting.objects.filter(unit__batch=batch).count() == 3
        unit = batch.units.get(position=0)
        good = do_work(server, unit, "A1GOOD")
        forged = do_work(server, unit, "A1FORGER", token="not-our-token")
        [report] = sync_open_batches.apply_async(queue=worker.queue).get(timeout=90)
    assert (report["batch"], report["listed"], report["verified"], report["flagged"]) == (batch.pk, 2, 1, 1)
    assert Submission.objects.get(assignment=good.assignment).verified is True
    flagged = Submission.objects.get(assignment=forged.assignment)
    assert (flagged.verified, flagged.problem) == (False, "completion token missing or wrong")


def test_killed_worker_then_rerun_publishes_every_unit_exactly_once(mturk_settings, server, tmp_path):
    from annotation.tasks import publish_batch

    batch = mturk_batch(units=6, assignments=2)
    job = PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=6)
    server.faults.add("CreateHITWithHITType", error="", count=1000, delay_seconds=0.7)  # slow MTurk
    with mturk_worker(server.url, tmp_path) as first:
        publish_batch.apply_async(args=[job.pk], queue=first.queue)
        wait_for(lambda: len(hit_rows(server)) >= 2)
        time.sleep(0.3)  # the third CreateHIT is now on its way: MTurk will make it, nobody will hear
        first.kill()
    time.sleep(1.0)  # the endpoint finishes the request the dead worker sent
    job.refresh_from_db()
    made = len(hit_rows(server))
    assert job.status == "running" and 2 <= job.done < 6 and made < 6
    assert Posting.objects.filter(unit__batch=batch).count() < made  # a HIT exists that we never recorded

    # nobody redelivers the dead worker's message (on Redis not for an hour): the watchdog sees
    # no progress for PUBLISH_STALE_MINUTES and sends the job to a live worker again
    server.faults.clear()
    assert publish_watchdog().resent == []  # not stale yet
    later = timezone.now() + timedelta(minutes=settings.PUBLISH_STALE_MINUTES + 1)
    with mturk_worker(server.url, tmp_path) as second:
        assert publish_watchdog(now=later, queue=second.queue).resent == [job.pk]
        wait_for(lambda: PublishJob.objects.get(pk=job.pk).status == "done", timeout=90)
    job.refresh_from_db()
    assert (job.done, job.dispatches, job.error) == (6, 2, "")

    hits = hit_rows(server)
    units = list(batch.units.order_by("position"))
    assert len(hits) == 6  # exactly one HIT per unit
    assert sorted(h["id"] for h in hits) == sorted(u.channel_ref for u in units)
    assert sorted(h["requester_annotation"] for h in hits) == sorted(
        f"batch {batch.pk} unit {u.pk} round 1" for u in units
    )
    assert Posting.objects.filter(unit__batch=batch).count() == 6
    answered_again = [r for r in server.faults.requests("CreateHITWithHITType") if r["error"] == "RequestError"]
    assert len(answered_again) == 1  # the HIT made for the dead worker, found again by its token
