"""HIT settings of a batch: defaults, and validation errors that name the field."""

from decimal import Decimal

import pytest

from annotation.channels import HitSettingsError, hit_settings_for, hit_settings_parse
from annotation.mturk import DEFAULT_LOCALES

from .conftest import mturk_batch


def test_defaults_are_the_issue_s_presets():
    hs = hit_settings_parse({}, defaults={"title": "T", "description": "D"})
    assert hs.reward == Decimal("0.50")
    assert (hs.assignment_duration_seconds, hs.lifetime_seconds, hs.auto_approval_delay_seconds) == (
        3600,
        7 * 86400,
        3 * 86400,
    )
    assert hs.frame_height == 0
    assert hs.locales == DEFAULT_LOCALES == ("US", "GB", "CA", "AU", "NZ", "IE")
    assert hs.min_approval_rate == 90 and hs.min_hits_approved == 1000
    assert hs.masters is False and hs.require_private_qualification is False


@pytest.mark.django_db
def test_batch_settings_override_defaults_and_titles_come_from_the_project():
    batch = mturk_batch(
        units=1,
        channel_settings={"reward": "1.25", "locales": ["us", "gb"], "masters": True, "min_hits_approved": None},
    )
    hs = hit_settings_for(batch)
    assert hs.title == "Reading study" and "Reading study" in hs.description
    assert hs.reward == Decimal("1.25") and hs.locales == ("US", "GB") and hs.masters
    assert hs.min_hits_approved is None and hs.requirement_count == 3
    assert hs.as_json()["reward"] == "1.25"


@pytest.mark.parametrize(
    "data, words",
    [
        ({"reward": "abc"}, "reward: 'abc' is not an amount"),
        ({"reward": 0.5}, "reward: write the amount in dollars as text"),
        ({"reward": "0.505"}, "reward: '0.505' is not an amount"),
        ({"reward": "0.00"}, "reward: must be at least 0.01"),
        ({"assignment_duration_seconds": 10}, "assignment_duration_seconds: must be between 30 and"),
        ({"lifetime_seconds": "a week"}, "lifetime_seconds: must be a whole number"),
        ({"auto_approval_delay_seconds": 31 * 86400}, "auto_approval_delay_seconds: must be between 0 and 2592000"),
        ({"frame_height": 20000}, "frame_height: must be between 0 and 10000"),
        ({"locales": ["USA"]}, "locales: not two-letter country codes: USA"),
        ({"locales": "US"}, "locales: must be a list"),
        ({"min_approval_rate": 100}, "min_approval_rate: must be between 0 and 99"),
        ({"masters": "yes"}, "masters: must be true or false"),
        ({"title": "  "}, "title: cannot be empty"),
        ({"rewrd": "0.10"}, "unknown setting(s) rewrd; known:"),
    ],
)
def test_invalid_settings_name_the_field(data, words):
    with pytest.raises(HitSettingsError) as caught:
        hit_settings_parse(data, defaults={"title": "T", "description": "D"})
    assert words in str(caught.value)


def test_every_problem_is_listed_at_once():
    with pytest.raises(HitSettingsError) as caught:
        hit_settings_parse(
            {"reward": "x", "frame_height": -1, "masters": 1}, defaults={"title": "T", "description": "D"}
        )
    assert sorted(p.split(":")[0] for p in caught.value.problems) == ["frame_height", "masters", "reward"]


def test_settings_must_be_an_object():
    with pytest.raises(HitSettingsError, match="JSON object"):
        hit_settings_parse(["reward"])
