"""The batch admin for a Prolific batch: the publish confirmation shows Prolific's figures, then
publishes; the study is paused, resumed and stopped; sync now."""

from __future__ import annotations

import pytest
from django.urls import reverse

from .conftest import prolific_batch

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]
CHANGELIST = reverse("admin:annotation_batch_changelist")


def _action(admin_client, batch, action: str, **extra):
    return admin_client.post(CHANGELIST, {"action": action, "_selected_action": [batch.pk], **extra}, follow=True)


def _study_status(server) -> str:
    return server.store.rows("SELECT status FROM studies")[0]["status"]


def test_publish_shows_the_cost_then_pauses_resumes_and_stops(admin_client, server, django_capture_on_commit_callbacks):
    batch = prolific_batch(units=3, assignments=2, channel_settings={"reward": "1.50"})
    page = _action(admin_client, batch, "publish_postings").content.decode()
    assert "Publish to Prolific" in page and "One Prolific study per batch" in page
    assert '<th id="publish-total">£12.60</th>' in page and "£10000.00" in page  # pounds: the workspace balance
    assert "$" not in page.split('id="content-main"')[1]
    with django_capture_on_commit_callbacks(execute=True):
        _action(admin_client, batch, "publish_postings", post="yes")
    assert _study_status(server) == "ACTIVE"
    assert "Paused 1 posting(s)" in _action(admin_client, batch, "pause_postings").content.decode()
    assert _study_status(server) == "PAUSED"
    _action(admin_client, batch, "resume_postings")
    assert _study_status(server) == "ACTIVE"
    synced = _action(admin_client, batch, "sync_open_batches").content.decode()
    assert "on Prolific: 1 posting(s), 0 submission(s)" in synced
    _action(admin_client, batch, "expire_postings")
    assert _study_status(server) == "COMPLETED"


def test_the_cost_page_shows_the_workspace_currency(admin_client, settings):
    settings.PROLIFIC_CURRENCY = "USD"
    batch = prolific_batch(units=1, assignments=1, channel_settings={"reward": "2.00"})
    page = _action(admin_client, batch, "publish_postings").content.decode()
    assert '<th id="publish-total">$2.80</th>' in page and "<td>$0.80</td>" in page and "£" not in page


def test_the_change_form_takes_its_help_and_its_check_from_the_channel(admin_client):
    batch = prolific_batch(units=1, assignments=1, channel_settings={"reward": "2.00"})
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    page = admin_client.get(url).content.decode()
    assert "Study settings as JSON" in page and "HIT settings" not in page
    data = {
        "name": batch.name,
        "status": "open",
        "release_after_minutes": 60,
        "channel_settings": '{"reward": "-1"}',
        "invites-TOTAL_FORMS": "0",
        "invites-INITIAL_FORMS": "0",
        "adjudication-TOTAL_FORMS": "0",
        "adjudication-INITIAL_FORMS": "0",
    }
    refused = admin_client.post(url, data)
    assert refused.status_code == 200
    assert "reward: a positive amount with at most 2 decimals" in refused.content.decode()
    assert batch.__class__.objects.get(pk=batch.pk).channel_settings == {"reward": "2.00"}
    saved = admin_client.post(url, {**data, "channel_settings": '{"reward": "2.50"}'})
    assert saved.status_code == 302
    assert batch.__class__.objects.get(pk=batch.pk).channel_settings == {"reward": "2.50"}


def test_the_review_form_offers_what_prolific_does_and_refuses_a_short_rejection_before_any_call(
    admin_client, server, django_capture_on_commit_callbacks
):
    from annotation.models import ChannelCall, Submission
    from quality.models import QualityRun

    from .conftest import take_part

    batch = prolific_batch(units=1, assignments=1, channel_settings={"reward": "2.00"})
    with django_capture_on_commit_callbacks(execute=True):
        _action(admin_client, batch, "publish_postings", post="yes")
    take_part(server, batch.units.first().channel_ref, "PDROPPED")
    QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    page = _action(admin_client, batch, "review_submissions").content.decode()
    assert 'value="review"' in page and 'value="bonus"' in page and 'name="rejection_category"' in page
    for hidden in ('value="message"', 'value="block"', 'value="grant"', 'name="subject"', 'name="approve_feedback"'):
        assert hidden not in page, hidden
    ChannelCall.objects.all().delete()
    refused = _action(
        admin_client,
        batch,
        "review_submissions",
        operation="review",
        who="kept",
        reject_feedback="Too short.",
        apply="1",
    ).content.decode()
    assert "Prolific takes at least 100 characters (this has 10)." in refused
    assert not ChannelCall.objects.exists()  # refused by the form: not even a sync went out
    assert not Submission.objects.exclude(review=Submission.Review.NONE).exists()
