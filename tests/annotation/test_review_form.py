"""The batch admin's review form offers what the batches' channels can do (their
`review_rules`) and checks the channels' rules on its texts before anything is sent."""

from __future__ import annotations

import pytest

from annotation.admin.recruitment.forms import ReviewForm
from annotation.channels import get_channel
from annotation.channels.review_rules import REVIEW_OPERATIONS

PROLIFIC_TEXT = "x" * 100


def form(*slugs: str, **data: str) -> ReviewForm:
    return ReviewForm(data or None, channels=[get_channel(slug) for slug in slugs])


def operations(found: ReviewForm) -> list[str]:
    return [value for value, _label in found.fields["operation"].choices]


def test_mturk_offers_every_operation_and_approval_feedback():
    found = form("mturk")
    assert operations(found) == list(REVIEW_OPERATIONS)
    assert {"approve_feedback", "subject", "who", "text", "amount", "label"} <= set(found.fields)
    assert "rejection_category" not in found.fields  # MTurk asks for none


def test_prolific_offers_only_review_and_bonuses_and_its_rejection_categories():
    found = form("prolific")
    assert operations(found) == ["review", "reject_unverified", "bonus"]
    assert "approve_feedback" not in found.fields and "subject" not in found.fields
    categories = [value for value, _label in found.fields["rejection_category"].choices]
    assert categories[0] == "" and {"FAILED_INSTRUCTIONS", "LOW_EFFORT", "NO_CODE"} <= set(categories)
    assert "Prolific: at least 100 characters" in found.fields["reject_feedback"].help_text
    assert found.fields["text"].label == "Bonus reason"


def test_invite_links_offer_nothing_to_review_and_mixed_channels_only_what_both_do():
    assert operations(form("invite")) == []
    assert operations(form()) == []
    assert operations(form("mturk", "prolific")) == ["review", "reject_unverified", "bonus"]


@pytest.mark.parametrize(
    ("slugs", "data", "field", "message"),
    [
        (("prolific",), {"reject_feedback": "Too short."}, "reject_feedback", "Prolific takes at least 100 characters"),
        (("mturk", "prolific"), {"reject_feedback": "Too short."}, "reject_feedback", "at least 100"),
        (("mturk",), {"reject_feedback": "x" * 1025}, "reject_feedback", "MTurk takes at most 1024 characters"),
        (
            ("mturk",),
            {"reject_feedback": "Wrong.", "approve_feedback": "y" * 1025},
            "approve_feedback",
            "MTurk takes at most 1024",
        ),
    ],
)
def test_the_channels_rules_are_checked_by_the_form(slugs, data, field, message):
    found = form(*slugs, operation="review", who="kept", **data)
    assert not found.is_valid()
    assert message in " ".join(found.errors[field])


def test_an_operation_the_channel_does_not_offer_is_not_accepted():
    found = form("prolific", operation="message", who="all", subject="Hi", text="Thanks")
    assert not found.is_valid() and "operation" in found.errors


def test_a_long_enough_prolific_rejection_with_a_category_is_accepted():
    found = form(
        "prolific", operation="review", who="kept", reject_feedback=PROLIFIC_TEXT, rejection_category="LOW_EFFORT"
    )
    assert found.is_valid(), found.errors
    assert found.cleaned_data["rejection_category"] == "LOW_EFFORT"


def test_every_channel_declares_only_what_it_implements():
    from annotation.channels import Channel, channel_choices

    needs = {
        "review": ("reject",),
        "reject_unverified": ("reject_ref",),
        "message": ("message",),
        "block": ("block",),
        "grant": ("grant_batch_qualification",),
    }
    for channel in (get_channel(slug) for slug, _title in channel_choices()):
        for operation in channel.review_rules.operations:
            assert operation in REVIEW_OPERATIONS
            for method in needs.get(operation, ()):
                assert getattr(type(channel), method) is not getattr(Channel, method), (channel.slug, operation)
        if "bonus" in channel.review_rules.operations:
            own = type(channel).bonus is not Channel.bonus or type(channel).bonuses_pay is not Channel.bonuses_pay
            assert own, channel.slug
