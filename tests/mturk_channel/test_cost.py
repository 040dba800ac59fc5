"""The cost estimate (reward + MTurk's fees, bonuses apart) and the balance check."""

from decimal import Decimal

import pytest

from annotation.models import PublishJob
from annotation.services.publish import PublishRefused, batch_publish_request, cost_estimate

from .conftest import BASE_URL, hit_rows, mturk_batch

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "reward, assignments, masters, fee, total",
    [
        # 4 units. 20 % of 0.50 = 0.10 -> 0.60 per assignment, x 3 x 4 = 7.20
        ("0.50", 3, False, "0.10", "7.20"),
        # Masters: 25 % of 0.50 = 0.125 -> 0.13 -> 0.63 x 12 = 7.56
        ("0.50", 3, True, "0.13", "7.56"),
        # 10 assignments: 40 % of 0.50 = 0.20 -> 0.70 x 40 = 28.00
        ("0.50", 10, False, "0.20", "28.00"),
        # both: 45 % of 0.50 = 0.225 -> 0.23 -> 0.73 x 40 = 29.20
        ("0.50", 10, True, "0.23", "29.20"),
        # tiny reward: 20 % of 0.02 = 0.004 -> the $0.01 minimum -> 0.03 x 12 = 0.36
        ("0.02", 3, False, "0.01", "0.36"),
        # 9 assignments stay at 20 %: 1.00 + 0.20 = 1.20 x 36 = 43.20
        ("1.00", 9, False, "0.20", "43.20"),
    ],
)
def test_estimate_matches_hand_computed_figures(mturk_settings, reward, assignments, masters, fee, total):
    batch = mturk_batch(units=4, assignments=assignments, channel_settings={"reward": reward, "masters": masters})
    estimate = cost_estimate(batch=batch)
    assert estimate.units == 4 and estimate.assignments == 4 * assignments
    assert estimate.reward == Decimal(reward) and estimate.fee == Decimal(fee)
    assert estimate.total == Decimal(total)
    assert estimate.rewards_total + estimate.fees_total == estimate.total
    assert estimate.rewards_total == Decimal(reward) * 4 * assignments
    assert estimate.balance == Decimal("100.00")
    assert estimate.enough is (Decimal(total) <= 100)


def test_estimate_counts_only_units_still_to_publish(mturk_settings):
    batch = mturk_batch(units=4)
    batch.units.filter(position__in=[0, 1]).update(channel_ref="3PUBLISHEDALREADY")
    assert cost_estimate(batch=batch, with_balance=False).units == 2


def test_balance_too_low_refuses_and_publishes_nothing(mturk_settings, server):
    server.store.set_balance("7.19")  # one cent short of the 7.20 the batch needs
    batch = mturk_batch(units=4)
    with pytest.raises(PublishRefused, match=r"balance \$7.19 cannot cover the estimated \$7.20.*\$0.01 short"):
        batch_publish_request(batch=batch, base_url=BASE_URL)
    assert not PublishJob.objects.exists()
    assert hit_rows(server) == []
    server.store.set_balance("7.20")  # exactly enough is enough
    assert cost_estimate(batch=batch).enough


def test_invite_batch_and_bad_settings_are_refused(mturk_settings):
    batch = mturk_batch(units=1)
    batch.channel = "invite"
    with pytest.raises(PublishRefused, match="recruited by Invite link"):
        cost_estimate(batch=batch)
    batch.channel, batch.channel_settings = "mturk", {"reward": "free"}
    with pytest.raises(PublishRefused, match="settings .* not valid: reward"):
        batch_publish_request(batch=batch, base_url=BASE_URL)
