"""Sync, review and payment of Prolific work against the local endpoint: verified submissions
approved or rejected (with Prolific's category and message), a bonus paid once, returned and
timed-out submissions free their units."""
from __future__ import annotations

import pytest

from annotation.channels import get_channel
from annotation.models import Assignment, Payment, Submission
from annotation.services.review import Decisions, bonus_pay, decisions_apply
from annotation.services.sync import batch_sync
from tests.prolific.conftest import REJECTION

from .conftest import BASE_URL, admin, prolific_batch, submission_row, take_part

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


@pytest.fixture
def study(server):
    batch = prolific_batch(units=2, assignments=1)
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    return batch, batch.units.first().channel_ref


def _keep(batch, **by_pid: bool) -> Decisions:
    ours = {a.annotator.external_id: a.annotator_id for a in Assignment.objects.filter(unit__batch=batch)}
    return Decisions(source="test", keep={ours[pid]: keep for pid, keep in by_pid.items()})


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
    batch, study_id = study
    take_part(server, study_id, "DROPPED")
    report = decisions_apply(batch=batch, decisions=_keep(batch, DROPPED=False), reject_feedback="Too short.")
    assert report.rejected == 0 and "100 characters" in " ".join(report.failed.values())


def test_a_bonus_is_set_up_and_paid_once(server, study):
    batch, study_id = study
    take_part(server, study_id, "KEPT")
    first = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    second = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert first.paid == 1 and second.paid == 0 and Payment.objects.count() == 1
    bonuses = admin(server, "GET", "/_local/bonuses")
    assert len(bonuses) == 1 and bonuses[0]["times_paid"] == 1


def test_a_bonus_whose_payment_answer_is_lost_is_never_paid_again(server, study):
    batch, study_id = study
    take_part(server, study_id, "KEPT")
    admin(server, "POST", "/_local/faults", {"operation": "pay_bonuses", "kind": "lost", "count": 1})
    first = bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert first.paid == 0 and "recorded as paid" in " ".join(first.failed.values())
    bonus_pay(batch=batch, amount="0.75", reason="Careful work", who="all", label="wave 1")
    assert sum(b["times_paid"] for b in admin(server, "GET", "/_local/bonuses")) == 1


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
