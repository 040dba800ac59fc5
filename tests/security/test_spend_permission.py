"""Spending on a recruiting site (publish, add paid assignments, resume a study, approve/reject and
pay bonuses) needs `annotation.spend_on_channel` on top of changing batches."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse

from annotation.models import Batch, PublishJob
from tests.factories import BatchFactory, UserFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db
SPENDING = {"publish_postings", "add_places", "review_submissions", "resume_postings"}
CHANGING = {
    "sync_open_batches",
    "expire_postings",
    "extend_postings",
    "pause_postings",
    "create_invite_link",
    "release_abandoned",
}


def actions_for(user) -> set[str]:
    request = RequestFactory().get("/admin/annotation/batch/")
    request.user = user
    return set(admin.site.get_model_admin(Batch).get_actions(request))


def test_changing_batches_does_not_allow_spending():
    actions = actions_for(staff_with("view_batch", "change_batch"))
    assert actions >= CHANGING and not actions & SPENDING


def test_the_spend_permission_opens_the_spending_actions():
    actions = actions_for(staff_with("view_batch", "change_batch", "spend_on_channel"))
    assert actions >= SPENDING | CHANGING


def test_spend_alone_without_change_opens_nothing():
    assert not actions_for(staff_with("view_batch", "spend_on_channel")) & (SPENDING | CHANGING)


def test_a_superuser_has_every_action():
    assert actions_for(UserFactory(is_staff=True, is_superuser=True)) >= SPENDING | CHANGING


def test_posting_a_spending_action_without_the_permission_does_nothing(client):
    batch = BatchFactory(channel="mturk")
    client.force_login(staff_with("view_batch", "change_batch", teams=[batch.project.team]))
    url = reverse("admin:annotation_batch_changelist")
    response = client.post(url, {"action": "publish_postings", "_selected_action": [batch.pk]})
    assert response.status_code == 302 and not PublishJob.objects.exists()
