"""The fee rule against the reference's figures (reference/prolific.md "Fees and pay rules":
33.3 % academic, 42.8 % corporate; Prolific's help centre: UK VAT 20 % on the fee only), and
the local endpoint's quote against the same rule."""

from decimal import Decimal

import pytest

from annotation import prolific
from annotation.prolific import fees

from .conftest import draft


def test_academic_study_of_100_places_at_1_50():
    cost = fees.study_cost(150, 100)  # £1.50 each, 100 participants
    assert (cost.rewards, cost.fees, cost.vat, cost.total) == (15000, 4995, 0, 19995)


def test_corporate_rate():
    cost = fees.study_cost(150, 100, fee_rate=fees.CORPORATE_FEE_RATE)
    assert (cost.fees, cost.total) == (6420, 21420)


def test_uk_vat_is_20_percent_of_the_fee_not_of_the_rewards():
    cost = fees.study_cost(150, 100, vat_rate=fees.vat_rate_for("GB"))
    assert (cost.fees, cost.vat, cost.total) == (4995, 999, 20994)


def test_rounding_is_half_up_in_minor_units():
    assert fees.cost(3).fees == 1  # 0.999 -> 1
    assert fees.cost(1).fees == 0  # 0.333 -> 0
    assert fees.cost(0).total == 0


@pytest.mark.parametrize(
    "country, has_number, rate",
    [
        ("GB", False, Decimal("0.20")),
        ("gb", True, Decimal("0.20")),
        ("US", False, Decimal(0)),
        ("DE", True, Decimal(0)),
    ],
)
def test_vat_rate_for(country, has_number, rate):
    assert fees.vat_rate_for(country, has_vat_number=has_number) == rate


def test_vat_for_eu_without_a_number_is_not_guessed():
    with pytest.raises(ValueError, match="study-cost-calculator"):
        fees.vat_rate_for("FR")


def test_negative_amounts_are_refused():
    with pytest.raises(ValueError):
        fees.study_cost(-1, 3)


def test_bonus_csv_is_in_major_units():
    assert prolific.bonus_csv({"p1": 150, "p2": 3000, "p3": 5}) == "p1,1.50\np2,30.00\np3,0.05"
    with pytest.raises(ValueError):
        prolific.bonus_csv({"p1": 0})


def test_local_quote_and_study_cost_follow_the_rule(client):
    assert prolific.quote_study_cost(client, reward=150, places=100) == 19995
    study = prolific.create_study(client, draft(places=100))
    assert study.total_cost == 19995
    cost = prolific.get_study_cost(client, study.id)
    assert (cost.rewards, cost.fees, cost.tax, cost.total) == (15000, 4995, 0, 19995)


def test_local_endpoint_with_uk_vat():
    from annotation.prolific.local import LocalProlificServer

    with LocalProlificServer(vat_rate=fees.UK_VAT_RATE) as server:
        client = prolific.make_client(api_url=server.url, token=server.token)
        assert prolific.quote_study_cost(client, reward=150, places=100) == 20994
