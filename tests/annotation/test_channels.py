"""The channel interface, as implemented by invite links."""

import pytest

from annotation.channels import ChannelNotSupported, UnknownChannel, channel_choices, get_channel
from annotation.kinds import get_kind
from annotation.models import Assignment
from annotation.services.assignments import assignment_next
from annotation.services.batches import BatchError, batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, save_answer
from tests.surveys.test_recam_flow import answer_for

pytestmark = pytest.mark.django_db


def test_unknown_channel_names_the_known_ones():
    with pytest.raises(UnknownChannel, match="known channels: invite, mturk"):
        get_channel("carrier-pigeon")
    project = ProjectFactory()
    ItemFactory(project=project)
    with pytest.raises(UnknownChannel):
        batch_create(project=project, name="b", channel="carrier-pigeon")
    with pytest.raises(BatchError):
        batch_create(project=project, name="b", items_per_unit=0)


def test_invite_channel_publishes_one_link_and_verifies_complete_work():
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    channel = get_channel(batch.channel)
    first = channel.publish(batch, base_url="https://annotate.example.org/")
    again = channel.publish(batch, base_url="https://annotate.example.org/")
    assert first.published == 1 and first.failed == {}
    assert first.links == again.links
    assert first.links[0].startswith("https://annotate.example.org/i/")
    assert batch.invites.count() == 1

    annotator = AnnotatorFactory(project=project)
    assignment = assignment_next(annotator=annotator, batch=batch)
    assert channel.verify_submission(assignment) == (False, "not every item was completed")
    for response in assignment.responses.select_related("item"):
        for page in ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"]:
            form_page = get_kind("recam").page(response.item.payload, page, response.answers)
            form = form_page.form_class(
                answer_for(page, response.item), payload=response.item.payload, answers=response.answers
            )
            assert form.is_valid(), form.errors
            save_answer(response.pk, page, form.answer())
            response.refresh_from_db()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert channel.verify_submission(assignment) == (True, "")
    with pytest.raises(ChannelNotSupported, match="bonuses"):
        channel.bonus(assignment, amount="0.50", reason="thanks")


def test_invite_channel_has_no_money_and_nothing_to_sync():
    channel = get_channel("invite")
    batch = batch_create(project=ItemFactory().project, name="b")
    assert channel.unit_cost(batch) is None and channel.balance() is None
    for call, words in [
        (lambda: channel.grant_qualification(["x"], name="n", description="d"), "qualifications"),
        (lambda: channel.submissions("ref"), "nothing to sync"),
        (lambda: channel.close_unit("ref"), "expire"),
        (lambda: channel.add_assignments("ref", number=1, request_token="t"), "add assignments"),
        (lambda: channel.message(["x"], subject="s", text="t"), "message"),
        (lambda: channel.block("x", reason="r"), "block"),
    ]:
        with pytest.raises(ChannelNotSupported, match=words):
            call()


def test_every_channel_is_registered_with_its_title():
    assert channel_choices() == [
        ("invite", "Invite link"),
        ("mturk", "Amazon Mechanical Turk"),
        ("prolific", "Prolific"),
    ]
