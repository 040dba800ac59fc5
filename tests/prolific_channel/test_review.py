"""Sync, review and payment of Prolific work against the local endpoint: verified submissions
approved or rejected (with Prolific's category and message), one bulk bonus per round set up and
paid once whatever fails, returned and timed-out submissions free their units."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from annotation.channels import get_channel
from annotation.models import Assignment, BulkPayment, Payment, Response, Submission
from annotation.services.bonuses import bonus_pay
from annotation.services.review import Decisions, decisions_apply
from annotation.services.sync import batch_sync
from tests.factories import ItemFactory
from tests.prolific.conftest import REJECTION

from .conftest import BASE_URL, admin, pid, prolific_batch, submission_row, take_part

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


@pytest.fixture
def study(server):
    batch = prolific_batch(units=2, assignments=1)
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    return batch, batch.units.first().channel_ref


def _keep(batch, **by_pid: bool) -> Decisions:
    ours = {a.annotator.external_id: a.annotator_id for a in Assignment.objects.filter(unit__batch=batch)}
    return Decisions(source="test", keep={ours[pid(name)]: keep for name, keep in by_pid.items()})


def test_sync_verifies_our_work_and_flags_a_wrong_code(server, study):
    batch, study_id = study
    good = take_part(server, study_id, "GOOD")
    bad = take_part(server, study_id, "BAD", finish=False)
    admin(server, "POST", "/_local/complete", {"submission_id": bad["session"], "code": "WRONG"})
    report = batch_sync(batch=batch)
    assert report.hits == 1 and report.listed == 2 and report.verified == 1 and report.flagged == 1
    assert Submission.objects.get(ref=good["session"]).verified
    flagged = Submission.objects.get(ref=bad["session"])
    assert not flagged.verified and "completion token" in flagged.problem
    assert get_channel("prolific").verify_submission(Assignment.objects.get(channel_assignment_id=good["session"]))[0]


def test_review_approves_the_kept_and_rejects_the_dropped_with_a_category(server, study):
    batch, study_id = study
    kept, dropped = take_part(server, study_id, "KEPT"), take_part(server, study_id, "DROPPED")
    report = decisions_apply(batch=batch, decisions=_keep(batch, KEPT=True, DROPPED=False), reject_feedback=REJECTION)
    assert (report.approved, report.rejected) == (1, 1), report.summary()
    assert submission_row(server, kept["session"])["status"] == "APPROVED"
    rejected = submission_row(server, dropped["session"])
    assert rejected["status"] == "REJECTED" and rejected["rejection_category"] == "FAILED_INSTRUCTIONS"
    again = decisions_apply(batch=batch, decisions=_keep(batch, KEPT=True, DROPPED=False), reject_feedback=REJECTION)
    assert (again.approved, again.rejected) == (0, 0)  # nothing reviewed twice


def test_a_short_rejection_message_is_refused_before_anything_is_sent(server, study):
    from annotation.models import ChannelCall
    from annotation.services.review import ReviewError, reject_unverified

    batch, study_id = study
    take_part(server, study_id, "DROPPED")
    ChannelCall.objects.all().delete()
    with pytest.raises(ReviewError, match="Prolific takes at least 100 characters"):
        decisions_apply(batch=batch, decisions=_keep(batch, DROPPED=False), reject_feedback="Too short.")
    with pytest.raises(ReviewError, match="Prolific takes at least 100 characters"):
        reject_unverified(batch=batch, feedback="Too short.")
    with pytest.raises(ReviewError, match="no rejection category 'RUDE'"):
        decisions_apply(
            batch=batch, decisions=_keep(batch, DROPPED=False), reject_feedback=REJECTION, reject_category="RUDE"
        )
    assert not ChannelCall.objects.exists()  # not even the sync: nothing was sent to Prolific
    assert Submission.objects.filter(review=Submission.Review.NONE).count() == Submission.objects.count()


def test_a_rejection_goes_with_the_category_chosen(server, study):
    batch, study_id = study
    dropped = take_part(server, study_id, "DROPPED")
    decisions_apply(
        batch=batch, decisions=_keep(batch, DROPPED=False), reject_feedback=REJECTION, reject_category="LOW_EFFORT"
    )
    assert submission_row(server, dropped["session"])["rejection_category"] == "LOW_EFFORT"


def test_what_prolific_does_not_offer_is_refused_before_any_call(server, study):
    from annotation.models import ChannelCall
    from annotation.services.review import ReviewError, participants_block, participants_message

    batch, study_id = study
    take_part(server, study_id, "SOMEONE")
    ChannelCall.objects.all().delete()
    with pytest.raises(ReviewError, match="Prolific does not offer this"):
        participants_message(batch=batch, subject="Hello", text="Thanks")
    with pytest.raises(ReviewError, match="Prolific does not offer this"):
        participants_block(batch=batch, reason="Spam", who="all")
    with pytest.raises(ReviewError, match="approve feedback: Prolific passes no text on"):
        decisions_apply(
            batch=batch, decisions=_keep(batch, SOMEONE=True), reject_feedback=REJECTION, approve_feedback="Thanks!"
        )
    assert not ChannelCall.objects.exists()


def _bonuses(server) -> list[dict]:
    return admin(server, "GET", "/_local/bonuses")


def test_one_bulk_bonus_pays_the_kept_participants_once(server, study):
    batch, study_id = study
    take_part(server, study_id, "DROPPED")
    kept = take_part(server, study_id, "KEPT")
    decisions = _keep(batch, KEPT=True, DROPPED=False)
    first = bonus_pay(batch=batch, amount="0.75", reason="Careful work", decisions=decisions, label="wave 1")
    second = bonus_pay(batch=batch, amount="0.75", reason="Careful work", decisions=decisions, label="wave 1")
    assert first.paid == 1 and second.paid == 0 and pid("KEPT") in second.skipped
    [bonus] = _bonuses(server)
    assert bonus["times_paid"] == 1 and bonus["rows"] == [[kept["session"], 75]]  # by submission, 0.75 -> 75p
    order = BulkPayment.objects.get()
    assert (order.state, order.ref, order.total, order.label) == ("paid", bonus["id"], Decimal("0.75"), "wave 1")
    assert Payment.objects.get().bulk == order


def test_every_participant_of_a_round_is_in_one_bulk_bonus(server, study):
    batch, study_id = study
    for name in ("ANNA", "BORIS"):
        take_part(server, study_id, name)
    report = bonus_pay(batch=batch, amount="1.20", reason="Careful work", who="all", label="wave 1")
    [bonus] = _bonuses(server)
    assert report.paid == 2 and len(bonus["rows"]) == 2 and bonus["times_paid"] == 1
    assert BulkPayment.objects.get().total == Decimal("2.40")
    assert admin(server, "GET", "/_local/requests?operation=set_up_bonuses")[0]["status"] == 201


def test_orders_are_split_where_the_site_caps_the_rows(server, study, monkeypatch):
    batch, study_id = study
    for name in ("ANNA", "BORIS"):
        take_part(server, study_id, name)
    monkeypatch.setattr(type(get_channel("prolific")), "bulk_bonus_rows", 1)
    assert bonus_pay(batch=batch, amount="0.50", reason="Careful work", who="all", label="wave 1").paid == 2
    assert list(BulkPayment.objects.values_list("part", "state")) == [(1, "paid"), (2, "paid")]
    assert [b["times_paid"] for b in _bonuses(server)] == [1, 1]


def test_a_bulk_bonus_whose_payment_answer_is_lost_is_never_paid_again(server, study):
    batch, study_id = study
    take_part(server, study_id, "KEPT")
    admin(server, "POST", "/_local/faults", {"operation": "pay_bonuses", "kind": "lost", "count": 1})
    first = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert first.paid == 0 and "recorded as paid" in " ".join(first.failed.values())
    assert BulkPayment.objects.get().state == BulkPayment.State.PAYING
    again = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert again.paid == 0 and pid("KEPT") in again.skipped
    assert sum(b["times_paid"] for b in _bonuses(server)) == 1
    assert len(admin(server, "GET", "/_local/requests?operation=pay_bonuses")) == 1


def test_a_refused_payment_is_paid_later_from_the_same_order(server, study):
    batch, study_id = study
    take_part(server, study_id, "KEPT")
    admin(server, "POST", "/_local/balance", {"balance": 10})
    refused = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert refused.paid == 0 and "Top up" in refused.failed[pid("KEPT")]
    assert BulkPayment.objects.get().state == BulkPayment.State.SET_UP
    admin(server, "POST", "/_local/balance", {"balance": 100_000})
    assert bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1").paid == 1
    [bonus] = _bonuses(server)  # set up once, paid once
    assert bonus["times_paid"] == 1 and BulkPayment.objects.get().state == BulkPayment.State.PAID


def test_a_set_up_whose_outcome_is_unknown_is_made_afresh_and_paid_once(server, study):
    batch, study_id = study
    take_part(server, study_id, "KEPT")
    admin(server, "POST", "/_local/faults", {"operation": "set_up_bonuses", "kind": "5xx", "count": 1})
    first = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert first.paid == 0 and "not set up" in first.failed[pid("KEPT")]
    assert not BulkPayment.objects.exists() and not Payment.objects.exists()
    assert bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1").paid == 1
    assert sorted(b["times_paid"] for b in _bonuses(server)) in ([1], [0, 1])  # an unpaid duplicate at most


@pytest.mark.parametrize("leave", ["/_local/return", "/_local/time-out"])
def test_a_returned_or_timed_out_submission_frees_its_unit(server, study, leave):
    batch, study_id = study
    gone = take_part(server, study_id, "GONE", finish=False)
    take_part(server, study_id, "OTHER", finish=False)  # both units (one place each) are held now
    admin(server, "POST", leave, {"submission_id": gone["session"]})
    batch_sync(batch=batch)
    freed = Assignment.objects.get(channel_assignment_id=gone["session"])
    assert freed.status == Assignment.Status.RELEASED
    newcomer = take_part(server, study_id, "NEW", finish=False)
    assert Assignment.objects.get(channel_assignment_id=newcomer["session"]).unit_id == freed.unit_id


def _failed_checks(batch, name: str, count: int) -> None:
    """`count` failed answers to check items in the participant's work, as check items are judged."""
    assignment = Assignment.objects.get(unit__batch=batch, annotator__external_id=pid(name))
    for n in range(count):
        item = ItemFactory(project=batch.project, check_answer={"post_choice": 4})
        Response.objects.create(
            assignment=assignment, item=item, position=100 + n, completed_at=timezone.now(), check_passed=False
        )


def test_a_rejection_for_failed_checks_follows_prolifics_attention_check_policy(server):
    """Issue 27: Prolific allows a rejection for failed attention checks only after two failed
    checks; the review rejects who failed two and skips, with the reason, who failed fewer."""
    batch = prolific_batch(units=2, assignments=1)
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    study_id = batch.units.first().channel_ref
    once, twice = take_part(server, study_id, "ONCE"), take_part(server, study_id, "TWICE")
    _failed_checks(batch, "ONCE", 1)
    _failed_checks(batch, "TWICE", 2)
    decisions = _keep(batch, ONCE=False, TWICE=False)
    report = decisions_apply(
        batch=batch, decisions=decisions, reject_feedback=REJECTION, reject_category="FAILED_CHECK"
    )
    assert report.rejected == 1 and submission_row(server, twice["session"])["rejection_category"] == "FAILED_CHECK"
    assert "needs 2 failed check answers and this person failed 1" in report.skipped[once["session"]]
    assert submission_row(server, once["session"])["status"] == "AWAITING REVIEW"
    # another category is not the attention-check rule's
    report = decisions_apply(batch=batch, decisions=decisions, reject_feedback=REJECTION, reject_category="LOW_EFFORT")
    assert report.rejected == 1 and submission_row(server, once["session"])["rejection_category"] == "LOW_EFFORT"


def test_in_a_study_under_five_minutes_one_failed_check_may_reject(server):
    batch = prolific_batch(units=1, assignments=1, channel_settings={"min_approval_rate": None, "estimated_minutes": 4})
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    once = take_part(server, batch.units.first().channel_ref, "ONCE")
    _failed_checks(batch, "ONCE", 1)
    report = decisions_apply(
        batch=batch, decisions=_keep(batch, ONCE=False), reject_feedback=REJECTION, reject_category="FAILED_CHECK"
    )
    assert report.rejected == 1 and submission_row(server, once["session"])["rejection_category"] == "FAILED_CHECK"
