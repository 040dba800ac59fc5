"""Tasks run in a real Celery worker process against the local broker and the test database."""

import os
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory
from tests.worker import broker_reachable, celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

if not broker_reachable():
    if os.environ.get("REQUIRE_SERVICES") == "1":
        raise RuntimeError("the Celery test broker is not reachable (CELERY_TEST_BROKER_URL)")
    pytestmark.append(pytest.mark.skip(reason="no Celery broker on 127.0.0.1:6379"))


def test_worker_releases_abandoned_assignments_and_runs_quality():
    from annotation.tasks import release_abandoned_assignments
    from quality.models import QualityRun
    from quality.tasks import run_quality

    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1, release_after_minutes=5)
    held = assignment_next(annotator=AnnotatorFactory(project=project), batch=batch)
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=timezone.now() - timedelta(minutes=10))
    with celery_worker() as queue:
        release_abandoned_assignments.apply_async(queue=queue).get(timeout=90)
        run_quality.apply_async(args=[project.pk], queue=queue).get(timeout=90)
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.RELEASED
    run = QualityRun.objects.get(project=project)
    assert run.status == QualityRun.Status.DONE


def test_worker_runs_a_model_run_against_the_local_endpoint(local_model):
    from annotation.models import ModelConnection, ModelRun
    from annotation.services.model_runs import model_run_estimate
    from annotation.tasks import run_model

    project = ProjectFactory()
    ItemFactory.create_batch(3, project=project)
    connection = ModelConnection.objects.create(
        team=project.team, name="worker-model", base_url=local_model.base_url, model="m", requests_per_minute=6000
    )
    run = model_run_estimate(project=project, connection=connection)
    with celery_worker() as queue:
        result = run_model.apply_async(args=[run.pk], queue=queue).get(timeout=90)
    assert result["status"] == "done" and result["done"] == 3
    assert ModelRun.objects.get(pk=run.pk).calls.filter(outcome="labeled").count() == 3
