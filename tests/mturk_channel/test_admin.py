"""The MTurk batch actions in the admin: cost confirmation, refusal, progress n of N, sync,
extend, add assignments, review; staff only, CSRF on."""

import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Batch, Posting, PublishJob, Submission
from annotation.services.publish import publish_job_run
from quality.models import AnnotatorDecision, QualityRun
from tests.factories import UserFactory

from .conftest import BASE_URL, do_work, hit_rows, local_assignment, mturk_batch

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:annotation_batch_changelist")


def action(client, name, batches, **data):
    return client.post(CHANGELIST, {"action": name, "_selected_action": [b.pk for b in batches], **data})


def published(batch):
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=batch.units.count()))
    return batch


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_publish_shows_cost_and_balance_then_publishes(
    admin_client, mturk_settings, server, django_capture_on_commit_callbacks
):
    batch = mturk_batch(units=4)
    page = action(admin_client, "publish_postings", [batch])
    assert page.status_code == 200
    html = text(page)
    assert (
        "<td>4</td><td>3</td> <td>$0.50</td><td>$0.10</td> <td>$6.00</td><td>$1.20</td><td><strong>$7.20</strong>"
    ) in html
    assert '<strong id="publish-balance">$100.00</strong>' in html and 'name="post" value="yes"' in html
    assert hit_rows(server) == [] and not PublishJob.objects.exists()  # nothing before confirming

    with django_capture_on_commit_callbacks(execute=True):
        done = action(admin_client, "publish_postings", [batch], post="yes")
    assert done.status_code == 302
    job = PublishJob.objects.get()
    assert (job.status, job.done, job.total, job.base_url) == ("done", 4, 4, "http://testserver")
    assert len(hit_rows(server)) == 4
    change = text(admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])))
    assert "4 of 4 units published as HITs." in change and f"Publish job #{job.pk}: Done (4 of 4 units)" in change


def test_publish_is_refused_when_the_balance_is_short(admin_client, mturk_settings, server):
    server.store.set_balance("5.00")
    batch = mturk_batch(units=4)
    html = text(action(admin_client, "publish_postings", [batch]))
    assert "Publishing is refused: the balance of $5.00 cannot cover the estimated $7.20." in html
    assert 'name="post"' not in html
    forced = action(admin_client, "publish_postings", [batch], post="yes")  # posting anyway does nothing
    assert forced.status_code == 200 and not PublishJob.objects.exists() and hit_rows(server) == []


def test_failed_units_and_progress_show_on_the_batch_page(admin_client, mturk_settings, server):
    batch = mturk_batch(units=3)
    server.faults.add(
        "CreateHITWithHITType",
        "RequestError",
        message="Bad question",
        turk_error_code="AWS.MechanicalTurk.InvalidQuestion",
    )
    published(batch)
    change = text(admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])))
    assert "2 of 3 units published as HITs." in change and "(2 of 3 units)" in change
    assert (
        "<li>unit #0: MTurk CreateHITWithHITType failed: RequestError/AWS.MechanicalTurk.InvalidQuestion: "
        "Bad question" in change
    )


def test_invalid_hit_settings_are_refused_on_the_change_form(admin_client, mturk_settings):
    batch = mturk_batch(units=1)
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    data = {
        "name": batch.name,
        "status": "open",
        "release_after_minutes": 60,
        "channel_settings": '{"reward": "lots", "frame_height": 99999}',
        "invites-TOTAL_FORMS": "0",
        "invites-INITIAL_FORMS": "0",
        "adjudication-TOTAL_FORMS": "0",
        "adjudication-INITIAL_FORMS": "0",
    }
    response = admin_client.post(url, data)
    assert response.status_code == 200
    html = text(response)
    assert "reward: &#x27;lots&#x27; is not an amount in dollars and cents" in html
    assert "frame_height: must be between 0 and 10000" in html
    response = admin_client.post(url, {**data, "channel_settings": '{"reward": "0.80"}'})
    assert response.status_code == 302
    assert Batch.objects.get(pk=batch.pk).channel_settings == {"reward": "0.80"}


def test_sync_now_reports_and_records(admin_client, mturk_settings, server):
    batch = published(mturk_batch(units=2))
    do_work(server, batch.units.get(position=0), "A1GOOD")
    do_work(server, batch.units.get(position=1), "A1FORGER", token="nope")
    response = action(admin_client, "sync_open_batches", [batch])
    assert response.status_code == 302
    page = text(admin_client.get(CHANGELIST))
    assert "2 posting(s), 2 submission(s): 1 verified, 1 flagged." in page
    assert Submission.objects.filter(verified=False).get().participant_ref == "A1FORGER"


def test_expire_and_extend(admin_client, mturk_settings, server):
    batch = published(mturk_batch(units=2))
    before = hit_rows(server)[0]["expiration"]
    form = action(admin_client, "extend_postings", [batch])
    assert form.status_code == 200 and 'name="hours"' in text(form)
    assert "Extend the HITs on MTurk" in text(form)  # the channel's words for its postings
    assert action(admin_client, "extend_postings", [batch], hours="0", apply="1").status_code == 200  # invalid
    response = action(admin_client, "extend_postings", [batch], hours="10", apply="1")
    assert response.status_code == 302
    assert hit_rows(server)[0]["expiration"] - before == pytest.approx(36000, abs=5)
    action(admin_client, "expire_postings", [batch])
    assert all(h["expiration"] <= server.store.now() for h in hit_rows(server))


def test_add_assignments_form(admin_client, mturk_settings, server):
    batch = published(mturk_batch(units=3, assignments=2))
    form = text(action(admin_client, "add_places", [batch]))
    label = re.search(r'name="label" value="([^"]+)"', form).group(1)
    assert "Add assignments to the HITs on MTurk" in form and "plus MTurk&#x27;s fee" in form
    for _ in range(2):  # a double submit of the same form adds once
        response = action(admin_client, "add_places", [batch], number="2", positions="1, 2", label=label, apply="1")
        assert response.status_code == 302
    assert sorted(Posting.objects.values_list("unit__position", "places")) == [(0, 2), (1, 4), (2, 4)]


def test_review_approves_kept_and_rejects_dropped(admin_client, mturk_settings, server):
    batch = published(mturk_batch(units=2))
    keep = do_work(server, batch.units.get(position=0), "A1KEEP")
    drop = do_work(server, batch.units.get(position=1), "A1DROP")
    run = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    AnnotatorDecision.objects.create(run=run, annotator=keep.assignment.annotator, keep=True)
    AnnotatorDecision.objects.create(run=run, annotator=drop.assignment.annotator, keep=False)
    page = text(action(admin_client, "review_submissions", [batch]))
    assert f"Decisions: “{batch}”: quality run {run.number} of " in page
    missing = action(admin_client, "review_submissions", [batch], operation="review", who="kept", apply="1")
    assert missing.status_code == 200 and "Needed for this operation." in text(missing)
    response = action(
        admin_client,
        "review_submissions",
        [batch],
        operation="review",
        who="kept",
        apply="1",
        reject_feedback="Too many wrong answers on the check questions.",
    )
    assert response.status_code == 302
    assert local_assignment(server, keep.mturk_id)["status"] == "Approved"
    rejected = local_assignment(server, drop.mturk_id)
    assert (rejected["status"], rejected["requester_feedback"]) == (
        "Rejected",
        "Too many wrong answers on the check questions.",
    )
    assert server.store.balance() == Decimal("99.40")
    action(
        admin_client,
        "review_submissions",
        [batch],
        operation="bonus",
        who="kept",
        amount="0.25",
        text="Thanks!",
        label="b1",
        apply="1",
    )
    assert [(r["worker_id"], r["amount"]) for r in server.store.rows("SELECT * FROM bonuses")] == [("A1KEEP", "0.25")]


def test_mturk_actions_need_staff_and_csrf(mturk_settings, server, client):
    batch = mturk_batch(units=1)
    user = UserFactory(is_staff=False)
    client.force_login(user)
    response = action(client, "publish_postings", [batch])
    assert response.status_code == 302 and "/login/" in response["Location"]
    staff = UserFactory(is_staff=True, is_superuser=True)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff)
    assert action(strict, "publish_postings", [batch], post="yes").status_code == 403
    assert not PublishJob.objects.exists()


def test_invite_batches_are_left_alone(admin_client, mturk_settings, server):
    batch = mturk_batch(units=1)
    Batch.objects.filter(pk=batch.pk).update(channel="invite")
    html = text(action(admin_client, "publish_postings", [batch]))
    assert "recruited by Invite link: there is nothing to publish" in html and 'name="post"' not in html
