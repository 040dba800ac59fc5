"""Publishing a batch as one Prolific study: the draft's contents, the cost, idempotence, and
recovery from faults (429, 5xx, an answer lost after the study was made)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from annotation import prolific
from annotation.channels import ChannelSettingsError, ChannelUnavailable, get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Posting, PublishJob
from annotation.services.publish import batch_publish_request, cost_estimate, publish_job_run
from tests.prolific.conftest import calls

from .conftest import BASE_URL, admin, prolific_batch

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


def _studies(server) -> list[dict]:
    return [dict(r) for r in server.store.rows("SELECT * FROM studies")]


@pytest.fixture(autouse=True)
def _on_commit(django_capture_on_commit_callbacks):
    global _capture
    _capture = django_capture_on_commit_callbacks


def _publish(batch) -> PublishJob:
    with _capture(execute=True):
        job = batch_publish_request(batch=batch, base_url=BASE_URL)
    job.refresh_from_db()
    return job


def test_a_batch_becomes_one_active_study_with_our_url_codes_and_filters(server):
    batch = prolific_batch(
        units=3,
        assignments=2,
        channel_settings={
            "reward": "2.00",
            "estimated_minutes": 12,
            "countries": ["0"],
            "first_languages": ["0"],
            "min_approval_rate": 95,
            "min_previous_submissions": 50,
            "block_list": ["BAD1"],
            "devices": ["desktop"],
        },
    )
    job = _publish(batch)
    assert job.status == PublishJob.Status.DONE and job.done == 3
    study = prolific.get_study(prolific.client_from_settings(), batch.units.first().channel_ref)
    assert study.status == "ACTIVE" and study.total_available_places == 6 and study.reward == 200
    assert study.external_study_url == (
        f"{BASE_URL}/prolific/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    codes = completion_codes(batch)
    assert study.code_of("COMPLETED") == codes["COMPLETED"]
    assert study.code_of("FAILED_ATTENTION_CHECK") == codes["FAILED_ATTENTION_CHECK"]
    assert {f["filter_id"] for f in study.filters} == {
        "current-country-of-residence",
        "first-language",
        "approval_rate",
        "approval_numbers",
        "custom_blocklist",
    }
    assert set(batch.units.values_list("channel_ref", flat=True)) == {study.id}
    assert Posting.objects.get().places == 6


def test_the_cost_is_the_reward_plus_prolifics_fee_and_vat(settings):
    settings.PROLIFIC_VAT_COUNTRY = "GB"
    batch = prolific_batch(units=3, assignments=2, channel_settings={"reward": "1.50"})
    estimate = cost_estimate(batch=batch)
    fee = prolific.cost(150, vat_rate=Decimal("0.20"))  # the client's fee rule: 33.3 %, VAT 20 % on it
    assert estimate.reward == Decimal("1.50") and estimate.fee == Decimal(fee.fees + fee.vat) / 100
    assert estimate.total == Decimal(fee.total * 6) / 100 and estimate.assignments == 6
    assert estimate.balance == Decimal("10000.00")


def test_publishing_twice_makes_one_study(server):
    batch = prolific_batch()
    _publish(batch)
    PublishJob.objects.update(status=PublishJob.Status.DONE)
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    assert len(_studies(server)) == 1 and Posting.objects.count() == 1


def test_throttling_is_retried_by_the_client(server):
    batch = prolific_batch()
    admin(server, "POST", "/_local/faults", {"operation": "create_study", "kind": "429", "count": 1})
    admin(server, "POST", "/_local/faults", {"operation": "study_publish", "kind": "429", "count": 1})
    job = _publish(batch)
    assert job.status == PublishJob.Status.DONE, job.error
    assert len(_studies(server)) == 1 and _studies(server)[0]["status"] == "ACTIVE"
    assert calls(server, "create_study") == [429, 201]


def test_a_server_error_on_create_is_looked_into_then_run_again_makes_one_study(server):
    batch = prolific_batch()
    job = PublishJob.objects.create(batch=batch, base_url=BASE_URL)
    admin(server, "POST", "/_local/faults", {"operation": "create_study", "kind": "5xx", "count": 1})
    with pytest.raises(ChannelUnavailable):  # the task retries later (not the create itself)
        publish_job_run(job=job)
    job = publish_job_run(job=job)
    assert job.status == PublishJob.Status.DONE, job.error
    assert len(_studies(server)) == 1 and _studies(server)[0]["status"] == "ACTIVE"
    admin(server, "POST", "/_local/faults", {"operation": "study_publish", "kind": "5xx", "count": 1})
    assert publish_job_run(job=job).status == PublishJob.Status.DONE


def test_an_answer_lost_after_the_study_was_made_finds_it_instead_of_a_second(server):
    batch = prolific_batch()
    admin(server, "POST", "/_local/faults", {"operation": "create_study", "kind": "lost", "count": 1})
    job = _publish(batch)
    assert job.status == PublishJob.Status.DONE, job.error
    assert len(_studies(server)) == 1 and calls(server, "create_study")[0] == 0


def test_a_crash_between_create_and_publish_is_recovered(server):
    batch = prolific_batch()
    channel = get_channel("prolific")
    prolific.create_study_once(prolific.client_from_settings(), channel.draft(batch, base_url=BASE_URL, places=6))
    job = _publish(batch)  # the draft is found by its internal name, then published
    assert job.status == PublishJob.Status.DONE
    assert [s["status"] for s in _studies(server)] == ["ACTIVE"]


def test_bad_settings_name_every_problem():
    batch = prolific_batch(
        channel_settings={
            "reward": "-1",
            "devices": ["fridge"],
            "allow_list": ["A"],
            "block_list": ["A"],
            "colour": "red",
        }
    )
    with pytest.raises(ChannelSettingsError) as raised:
        get_channel("prolific").check_settings(batch)
    text = str(raised.value)
    for word in (
        "reward",
        "devices",
        "allow_list and block_list",
        "colour",
    ):
        assert word in text


@pytest.mark.parametrize("amount", ["0", "-0.10", "1.50", "2.00", "0.123", "lots"])
def test_a_screen_out_reward_must_be_above_nothing_and_below_the_reward(amount):
    batch = prolific_batch(channel_settings={"reward": "1.50", "screen_out_reward": amount, "screen_out_slots": 0})
    with pytest.raises(ChannelSettingsError) as raised:
        get_channel("prolific").check_settings(batch)
    assert "screen_out_reward: an amount above 0 and below the reward (1.50)" in str(raised.value)
    assert "screen_out_slots: a whole number from 1" in str(raised.value)


def test_a_screen_out_reward_sets_the_second_code_up_as_a_fixed_screen_out():
    batch = prolific_batch(units=2, assignments=2, channel_settings={"reward": "2.00", "screen_out_reward": "0.25"})
    codes = get_channel("prolific").draft(batch, base_url=BASE_URL, places=4).completion_codes
    assert [c["code_type"] for c in codes] == ["COMPLETED", "FIXED_SCREENOUT"]
    assert codes[1]["actions"] == [{"action": "FIXED_SCREEN_OUT_PAYMENT", "fixed_screen_out_reward": 25, "slots": 4}]
    plain = get_channel("prolific").draft(prolific_batch(), base_url=BASE_URL, places=4).completion_codes
    assert plain[1]["code_type"] == "FAILED_ATTENTION_CHECK" and plain[1]["actions"][0]["action"] == "REQUEST_RETURN"
