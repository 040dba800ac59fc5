"""Stuck publish jobs: a job whose worker died (or whose message was lost) stays pending or
running; the watchdog sends it again, at most PUBLISH_MAX_DISPATCHES times, then marks it
failed with what to check, and the batch page says so meanwhile."""

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.models import Posting, PublishJob
from annotation.services.publish import batch_publish_request, job_stale_minutes, publish_watchdog
from config.celery import app

from .conftest import BASE_URL, hit_rows, mturk_batch

pytestmark = pytest.mark.django_db


def stuck_job(
    batch, *, minutes: int, status=PublishJob.Status.RUNNING, dispatches: int = 1, progress: bool = True
) -> PublishJob:
    """A job as a dead worker leaves it: open, its last sign of life ``minutes`` ago."""
    job = PublishJob.objects.create(
        batch=batch, base_url=BASE_URL, total=batch.units.count(), status=status, dispatches=dispatches
    )
    then = timezone.now() - timedelta(minutes=minutes)
    PublishJob.objects.filter(pk=job.pk).update(created_at=then, progress_at=then if progress else None)
    job.refresh_from_db()
    return job


def test_a_stuck_job_is_sent_again_and_publishes_each_unit_once(
    mturk_settings, server, django_capture_on_commit_callbacks
):
    batch = mturk_batch(units=3)
    job = stuck_job(batch, minutes=20)
    assert job_stale_minutes(job) == 20
    with django_capture_on_commit_callbacks(execute=True):  # no broker in these tests: the task runs inline
        report = publish_watchdog()
    assert report.as_dict() == {"resent": [job.pk], "failed": []}
    job.refresh_from_db()
    assert (job.status, job.done, job.dispatches, job.error) == ("done", 3, 2, "")
    assert len(hit_rows(server)) == 3 and Posting.objects.filter(unit__batch=batch).count() == 3


def test_a_pending_job_no_worker_ever_took_counts_from_its_creation(
    mturk_settings, server, django_capture_on_commit_callbacks
):
    job = stuck_job(mturk_batch(units=2), minutes=16, status=PublishJob.Status.PENDING, progress=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert publish_watchdog().resent == [job.pk]
    job.refresh_from_db()
    assert job.status == "done" and job.done == 2


def test_jobs_with_recent_progress_or_finished_are_left_alone(mturk_settings, server, settings):
    settings.PUBLISH_STALE_MINUTES = 15
    busy = stuck_job(mturk_batch(units=1), minutes=14)
    finished = stuck_job(mturk_batch(units=1), minutes=60, status=PublishJob.Status.DONE)
    given_up = stuck_job(mturk_batch(units=1), minutes=60, status=PublishJob.Status.FAILED)
    assert publish_watchdog().as_dict() == {"resent": [], "failed": []}
    assert [job_stale_minutes(j) for j in (busy, finished, given_up)] == [None, None, None]
    # the clock moves on: the busy one is now stuck
    assert publish_watchdog(now=timezone.now() + timedelta(minutes=2)).resent == [busy.pk]
    assert hit_rows(server) == []  # sent only once the watchdog's transaction commits (not here)
    assert PublishJob.objects.get(pk=busy.pk).dispatches == 2


def test_after_the_last_send_the_job_fails_with_what_to_check_and_publishing_again_resumes(
    mturk_settings, server, settings, django_capture_on_commit_callbacks
):
    settings.PUBLISH_MAX_DISPATCHES = 3
    batch = mturk_batch(units=2)
    job = stuck_job(batch, minutes=30, dispatches=3)
    report = publish_watchdog()
    assert report.as_dict() == {"resent": [], "failed": [job.pk]}
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert job.error.startswith("No progress for 30 minutes after 3 sends to the Celery workers: is a worker running")
    assert hit_rows(server) == []

    with django_capture_on_commit_callbacks(execute=True):
        again = batch_publish_request(batch=batch, base_url=BASE_URL)
    assert again.pk != job.pk
    again.refresh_from_db()
    assert (again.status, again.done) == ("done", 2) and len(hit_rows(server)) == 2


def test_the_batch_page_says_a_job_is_stuck(admin_client, mturk_settings, server, settings):
    settings.PUBLISH_MAX_DISPATCHES = 3
    batch = mturk_batch(units=2)
    stuck_job(batch, minutes=42, dispatches=2)
    html = re.sub(
        r"\s+", " ", admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])).content.decode()
    )
    assert (
        "No progress for 42 minutes: the watchdog sends the job to the workers again (sent 2 of 3 times), "
        "then marks it failed."
    ) in html


def test_watchdog_command_and_beat_schedule(mturk_settings, server, settings, django_capture_on_commit_callbacks):
    out = StringIO()
    call_command("mturk", "watchdog", stdout=out)
    assert out.getvalue().strip() == "No stuck publish jobs."
    job = stuck_job(mturk_batch(units=1), minutes=20)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("mturk", "watchdog", stdout=out)
    assert out.getvalue().strip() == f"Job #{job.pk}: no progress; sent to the workers again."

    entry = settings.CELERY_BEAT_SCHEDULE["publish-watchdog"]
    assert entry["task"] in app.tasks  # beat names a task the workers know
    assert app.tasks[entry["task"]].apply().get() == {"resent": [], "failed": []}
