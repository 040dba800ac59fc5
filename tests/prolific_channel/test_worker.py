"""Publish and the periodic sync of a Prolific batch in a real Celery worker process, against
the local Prolific endpoint (run with CELERY_TEST_BROKER_URL=redis://127.0.0.1:6379/13)."""

import os

import pytest

from annotation.models import Assignment, PublishJob, Submission
from tests.worker import broker_reachable, worker_process

from .conftest import BASE_URL, prolific_batch, take_part

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

if not broker_reachable():
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise RuntimeError("the Celery test broker is not reachable (CELERY_TEST_BROKER_URL)")
    pytestmark.append(pytest.mark.skip(reason="no Celery broker on 127.0.0.1:6379"))


def test_worker_publishes_the_study_and_the_beat_job_syncs_it(prolific_settings, server, tmp_path):
    from annotation.tasks import publish_batch, sync_open_batches

    batch = prolific_batch(units=2, assignments=1)
    job = PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=2)
    env = {
        "PROLIFIC_API_URL": server.url,
        "PROLIFIC_API_TOKEN": server.token,
        "PROLIFIC_COMPLETION_URL": server.completion_url,
    }
    with worker_process(extra_env=env, log_dir=tmp_path) as worker:
        result = publish_batch.apply_async(args=[job.pk], queue=worker.queue).get(timeout=90)
        assert result == {"job": job.pk, "status": "done", "done": 2, "total": 2, "failed": 0}
        study_id = batch.units.first().channel_ref
        done = take_part(server, study_id, "PART1")
        [report] = sync_open_batches.apply_async(queue=worker.queue).get(timeout=90)
    assert (report["batch"], report["hits"], report["listed"], report["verified"]) == (batch.pk, 1, 1, 1)
    sub = Submission.objects.get(ref=done["session"])
    assert sub.verified and sub.channel_status == "AWAITING REVIEW"
    assert Assignment.objects.get(channel_assignment_id=done["session"]).status == Assignment.Status.SUBMITTED
