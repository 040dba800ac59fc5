"""Assignments, approvals, rejections and bonuses through boto3 against the local endpoint."""

from decimal import Decimal

import pytest

from annotation import mturk
from annotation.mturk.local import work

from .conftest import admin, api_raw, make_hit


def submitted(server, hit, worker_id, **fields) -> str:
    assignment_id = work.accept(server.store, hit.hit_id, worker_id)
    work.submit(server.store, assignment_id, list((fields or {"answer": "A"}).items()))
    return assignment_id


def test_list_assignments_pages_with_next_token(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=26)
    ids = [submitted(server, hit, f"A{i:03d}WORKER", answer=str(i)) for i in range(25)]
    in_progress = work.accept(server.store, hit.hit_id, "A999WORKER")  # accepted, not submitted
    admin(server, "DELETE", "/_local/requests")
    found = mturk.list_assignments_for_hit(mturk_client, hit.hit_id, page_size=10)
    assert [a.assignment_id for a in found] == ids
    assert in_progress not in {a.assignment_id for a in found}
    assert [a.answers["answer"] for a in found] == [str(i) for i in range(25)]
    calls = admin(server, "GET", "/_local/requests?operation=ListAssignmentsForHIT")
    assert len(calls) == 3
    assert "NextToken" not in calls[0]["params"] and "NextToken" in calls[2]["params"]


def test_list_assignments_filters_by_status(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=3)
    first, second, third = (submitted(server, hit, w) for w in ("A1ONE", "A1TWO", "A1THREE"))
    mturk.approve_assignment(mturk_client, first)
    mturk.reject_assignment(mturk_client, second, feedback="The answers were random.")
    by_status = {
        s: [a.assignment_id for a in mturk.list_assignments_for_hit(mturk_client, hit.hit_id, statuses=[s])]
        for s in ("Submitted", "Approved", "Rejected")
    }
    assert by_status == {"Submitted": [third], "Approved": [first], "Rejected": [second]}
    with pytest.raises(ValueError):
        mturk.list_assignments_for_hit(mturk_client, hit.hit_id, statuses=["Accepted"])


def test_get_assignment_returns_assignment_and_hit(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = submitted(server, hit, "A1READER", token="done-123")
    assignment, its_hit = mturk.get_assignment(mturk_client, assignment_id)
    assert (assignment.worker_id, assignment.hit_id, assignment.status) == ("A1READER", hit.hit_id, "Submitted")
    assert assignment.answers == {"token": "done-123"}
    assert assignment.submit_time is not None and assignment.auto_approval_time is not None
    assert its_hit.hit_id == hit.hit_id and its_hit.requester_annotation == "unit:1"


def test_accepted_assignment_is_not_visible_to_the_requester(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = work.accept(server.store, hit.hit_id, "A1READER")
    with pytest.raises(mturk.MTurkRequestError, match="does not exist"):
        mturk.get_assignment(mturk_client, assignment_id)


def test_approve_pays_reward_and_fee_once(mturk_client, server):
    hit = make_hit(mturk_client, reward="0.50")
    assignment_id = submitted(server, hit, "A1READER")
    mturk.approve_assignment(mturk_client, assignment_id, feedback="Thanks!")
    mturk.approve_assignment(mturk_client, assignment_id)  # a retry is not a second payment
    assignment, _ = mturk.get_assignment(mturk_client, assignment_id)
    assert assignment.status == "Approved"
    assert assignment.requester_feedback == "Thanks!"
    assert mturk.get_account_balance(mturk_client).available == Decimal("100.00") - Decimal("0.60")


def test_approve_refused_without_funds(mturk_client, server):
    hit = make_hit(mturk_client, reward="0.50")
    assignment_id = submitted(server, hit, "A1READER")
    admin(server, "POST", "/_local/balance", {"available": "0.59"})
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.approve_assignment(mturk_client, assignment_id)
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.InsufficientFunds"
    assert mturk.get_assignment(mturk_client, assignment_id)[0].status == "Submitted"


def test_reject_needs_feedback(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = submitted(server, hit, "A1READER")
    with pytest.raises(ValueError, match="feedback is required"):
        mturk.reject_assignment(mturk_client, assignment_id, feedback="  ")
    status, body = api_raw(server, "RejectAssignment", {"AssignmentId": assignment_id, "RequesterFeedback": " "})
    assert status == 400 and body["__type"].endswith("#RequestError")
    status, body = api_raw(server, "RejectAssignment", {"AssignmentId": assignment_id})
    assert status == 400 and "RequesterFeedback is required" in body["Message"]
    mturk.reject_assignment(mturk_client, assignment_id, feedback="Gold questions failed.")
    mturk.reject_assignment(mturk_client, assignment_id, feedback="Gold questions failed.")  # retry: no error
    assignment, _ = mturk.get_assignment(mturk_client, assignment_id)
    assert (assignment.status, assignment.requester_feedback) == ("Rejected", "Gold questions failed.")
    assert mturk.get_account_balance(mturk_client).available == Decimal("100.00")


def test_approve_after_reject_needs_override(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = submitted(server, hit, "A1READER")
    mturk.reject_assignment(mturk_client, assignment_id, feedback="Wrong.")
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.approve_assignment(mturk_client, assignment_id)
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.InvalidAssignmentState"
    mturk.approve_assignment(mturk_client, assignment_id, override_rejection=True)
    assert mturk.get_assignment(mturk_client, assignment_id)[0].status == "Approved"


def test_send_bonus_pays_once_per_token(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = submitted(server, hit, "A1READER")
    for _ in range(2):
        mturk.send_bonus(
            mturk_client,
            worker_id="A1READER",
            assignment_id=assignment_id,
            amount="1.00",
            reason="High agreement",
            unique_request_token="bonus-1",
        )
    assert mturk.get_account_balance(mturk_client).available == Decimal("98.80")  # 1.00 + 20 % once
    bonuses = admin(server, "GET", "/_local/bonuses")
    assert [(b["worker_id"], b["amount"], b["fee"]) for b in bonuses] == [("A1READER", "1.00", "0.20")]
    mturk.send_bonus(
        mturk_client,
        worker_id="A1READER",
        assignment_id=assignment_id,
        amount="0.50",
        reason="Second round",
        unique_request_token="bonus-2",
    )
    assert len(admin(server, "GET", "/_local/bonuses")) == 2


def test_send_bonus_checks_the_worker_and_amount(mturk_client, server):
    hit = make_hit(mturk_client)
    assignment_id = submitted(server, hit, "A1READER")
    with pytest.raises(mturk.MTurkRequestError, match="not done by worker A1OTHER"):
        mturk.send_bonus(
            mturk_client,
            worker_id="A1OTHER",
            assignment_id=assignment_id,
            amount="1.00",
            reason="x",
            unique_request_token="b",
        )
    with pytest.raises(ValueError):
        mturk.send_bonus(
            mturk_client,
            worker_id="A1READER",
            assignment_id=assignment_id,
            amount="0.001",
            reason="x",
            unique_request_token="b",
        )
    with pytest.raises(ValueError):
        mturk.send_bonus(
            mturk_client,
            worker_id="A1READER",
            assignment_id=assignment_id,
            amount="1",
            reason="x",
            unique_request_token="",
        )
    assert admin(server, "GET", "/_local/bonuses") == []
