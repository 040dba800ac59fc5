"""An adjudicator who claims a task and leaves holds it only for the batch's
`release_after_minutes`; the periodic sweep hands it to the next adjudicator."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import AdjudicationTask
from annotation.services.adjudication import adjudication_task_next, adjudication_tasks_release_idle
from annotation.tasks import release_abandoned_assignments
from tests.annotation.test_adjudication import adjudicator_of, gcrc_batch, two_annotations

pytestmark = pytest.mark.django_db


def claimed(batch, django_capture_on_commit_callbacks):
    two_annotations(batch, django_capture_on_commit_callbacks)
    gone = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=gone)
    assert task.claimed_at is not None
    return gone, task


def test_a_fresh_claim_is_kept(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    gone, task = claimed(batch, django_capture_on_commit_callbacks)
    assert adjudication_tasks_release_idle() == 0
    task.refresh_from_db()
    assert task.adjudicator == gone


def test_an_idle_claim_goes_to_the_next_adjudicator(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    _gone, task = claimed(batch, django_capture_on_commit_callbacks)
    later = timezone.now() + timedelta(minutes=batch.release_after_minutes + 1)
    assert adjudication_tasks_release_idle(now=later) == 1
    assert adjudication_tasks_release_idle(now=later) == 0  # idempotent
    task.refresh_from_db()
    assert (task.adjudicator, task.claimed_at) == (None, None)
    assert adjudication_task_next(adjudicator=adjudicator_of(batch)) == task


def test_coming_back_renews_the_claim(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    gone, task = claimed(batch, django_capture_on_commit_callbacks)
    old = timezone.now() - timedelta(minutes=batch.release_after_minutes + 1)
    AdjudicationTask.objects.filter(pk=task.pk).update(claimed_at=old)
    assert adjudication_task_next(adjudicator=gone) == task
    assert adjudication_tasks_release_idle() == 0


def test_the_periodic_sweep_releases_idle_claims(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    _gone, task = claimed(batch, django_capture_on_commit_callbacks)
    old = timezone.now() - timedelta(minutes=batch.release_after_minutes + 1)
    AdjudicationTask.objects.filter(pk=task.pk).update(claimed_at=old)
    assert release_abandoned_assignments() == 1
    assert AdjudicationTask.objects.get().adjudicator is None


def test_a_decided_task_is_never_released(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    gone, task = claimed(batch, django_capture_on_commit_callbacks)
    AdjudicationTask.objects.filter(pk=task.pk).update(status=AdjudicationTask.Status.DECIDED)
    later = timezone.now() + timedelta(minutes=batch.release_after_minutes + 1)
    assert adjudication_tasks_release_idle(now=later) == 0
    assert AdjudicationTask.objects.get().adjudicator == gone
