"""Every call to the recruiting site is recorded on its batch (``ChannelCall``): operation, what
was sent (no token), the HTTP status and outcome; shown read-only on the batch page and in the API."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from annotation.models import ChannelCall
from annotation.services.postings import postings_expire, postings_pause
from annotation.services.publish import batch_publish_request, channel_balance

from .conftest import BASE_URL, admin, prolific_batch

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


@pytest.fixture
def published(server, django_capture_on_commit_callbacks):
    batch = prolific_batch(units=2, assignments=1)
    with django_capture_on_commit_callbacks(execute=True):
        batch_publish_request(batch=batch, base_url=BASE_URL)
    return batch


def test_publishing_records_each_call_on_the_batch_without_the_token(server, published):
    calls = list(ChannelCall.objects.filter(batch=published).order_by("id"))
    operations = [c.operation for c in calls]
    assert "create_study" in operations and "study_publish" in operations and "get_balance" in operations
    assert all(
        c.channel == "prolific" and c.outcome == ChannelCall.Outcome.OK and c.status in (200, 201) for c in calls
    )
    create = next(c for c in calls if c.operation == "create_study")
    assert create.request.startswith("POST /api/v1/studies/ ") and '"internal_name": "batch-' in create.request
    assert create.duration_ms is not None
    assert not ChannelCall.objects.filter(request__contains=server.token).exists()
    assert not ChannelCall.objects.filter(batch=None).exists()  # the balance check ran for the batch too


def test_a_retried_call_and_a_refused_one_are_recorded_with_their_outcome(server, published):
    admin(server, "POST", "/_local/faults", {"operation": "study_pause", "kind": "429", "count": 1})
    assert postings_pause(batch=published).changed == 1
    paused = ChannelCall.objects.get(batch=published, operation="study_pause")
    assert paused.status == 200 and paused.outcome == ChannelCall.Outcome.OK  # one entry: the retry is inside
    postings_expire(batch=published)
    assert postings_pause(batch=published).failed  # a stopped study cannot be paused
    refused = ChannelCall.objects.filter(batch=published, operation="study_pause").latest("id")
    assert refused.status == 400 and refused.outcome == ChannelCall.Outcome.REFUSED and refused.error


def test_an_account_call_outside_a_batch_service_has_no_batch(server, published):
    from annotation.channels import get_channel

    get_channel("prolific").balance()
    assert ChannelCall.objects.filter(batch=None, operation="get_balance").exists()
    channel_balance(batch=published)
    assert ChannelCall.objects.filter(batch=published, operation="get_balance").count() >= 2


def test_the_batch_page_and_the_api_show_the_calls(admin_client, published):
    page = admin_client.get(reverse("admin:annotation_batch_change", args=[published.pk])).content.decode()
    total = ChannelCall.objects.filter(batch=published).count()
    assert f"{total} call(s)</a>, 0 not done" in page and "create_study" in page
    listing = admin_client.get(reverse("admin:annotation_channelcall_changelist") + f"?batch__id__exact={published.pk}")
    assert listing.status_code == 200 and "study_publish" in listing.content.decode()
    answer = admin_client.get(f"/api/batches/{published.pk}/calls/").json()
    assert answer["count"] == total
    assert {"operation", "request", "status", "outcome", "error", "duration_ms"} <= set(answer["results"][0])


def test_the_api_needs_the_call_log_view_permission(client, django_user_model, published):
    user = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_batch"))
    user.teams.add(published.project.team)  # a researcher of the batch's team: only permissions stand in the way
    client.force_login(user)
    assert client.get(f"/api/batches/{published.pk}/calls/").status_code == 403
    user.user_permissions.add(Permission.objects.get(codename="view_channelcall"))
    user = django_user_model.objects.get(pk=user.pk)
    client.force_login(user)
    assert client.get(f"/api/batches/{published.pk}/calls/").status_code == 200
