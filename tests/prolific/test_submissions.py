"""Submissions through the real client: a simulated participant's way in and out, pages,
review (approve, reject with category, bulk approve), return requests, returns and
time-outs freeing places, and bonuses (set up, then pay)."""

import urllib.parse

import pytest

from annotation import prolific

from .conftest import REJECTION, TASK_URL, Browser, admin, api_raw, draft, published, take_part


def test_a_participant_opens_the_study_url_and_comes_back_with_the_code(client, server):
    study = published(client)
    browser = Browser(server.url)
    chooser = browser.get("/participant/").text
    assert "Take part" in chooser
    assert (
        f"<option value='{study.id}'>Read a passage and answer (batch-1) · {study.id}</option>" in chooser
    )  # issue 38: by name too
    opened = browser.post("/participant/start", {"study_id": study.id, "participant_id": "P1"})
    assert opened.status == 302
    url = urllib.parse.urlsplit(opened.location)
    params = dict(urllib.parse.parse_qsl(url.query))
    assert f"{url.scheme}://{url.netloc}{url.path}" == TASK_URL
    assert (params["PROLIFIC_PID"], params["STUDY_ID"], params["batch"]) == ("P1", study.id, "1")
    session_id = params["SESSION_ID"]
    assert prolific.get_submission(client, session_id).status == "ACTIVE"
    again = browser.post("/participant/start", {"study_id": study.id, "participant_id": "P1"})
    assert again.location == opened.location  # resuming gives the same session
    done = browser.get(prolific.completion_url("C1DONE", base=server.completion_url))
    assert done.status == 200 and "AWAITING REVIEW" in done.text
    submission = prolific.get_submission(client, session_id)
    assert (submission.status, submission.code, submission.participant_id) == ("AWAITING REVIEW", "C1DONE", "P1")


def test_the_failed_check_code_asks_for_a_return(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P2", code="C2FAIL")
    submission = prolific.get_submission(client, submission_id)
    assert (submission.status, submission.return_requested) == ("AWAITING REVIEW", True)


def test_a_wrong_code_still_goes_to_review(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P3", code="WRONG")
    assert prolific.get_submission(client, submission_id).code == "WRONG"


def test_the_simulator_refuses_what_prolific_would(client, server):
    study = published(client, places=1, filters=(prolific.select_filter(prolific.CUSTOM_BLOCKLIST, ["BLOCKED"]),))
    browser = Browser(server.url)
    refused = browser.post("/participant/start", {"study_id": study.id, "participant_id": "BLOCKED"})
    assert refused.status == 400 and "not eligible" in refused.text
    assert Browser(server.url).get("/submissions/complete?cc=C1DONE").status == 400
    take_part(server, study.id, "P1")
    full = browser.post("/participant/start", {"study_id": study.id, "participant_id": "P9"})
    assert full.status == 400 and "All places" in full.text


def test_an_allow_list_admits_only_its_participants(client, server):
    study = published(client, filters=(prolific.select_filter(prolific.CUSTOM_ALLOWLIST, ["P1"]),))
    take_part(server, study.id, "P1")
    browser = Browser(server.url)
    page = browser.get(f"/participant/start?study_id={study.id}&participant_id=P2")
    assert page.status == 400 and "not eligible" in page.text


def test_listing_submissions_page_by_page(client, server):
    study = published(client, places=5)
    ids = [take_part(server, study.id, f"P{n}") for n in range(5)]
    first = prolific.list_submissions(client, study.id, page=1, page_size=2)
    assert ([s.id for s in first.results], first.count, first.has_next) == (ids[:2], 5, True)
    last = prolific.list_submissions(client, study.id, page=3, page_size=2)
    assert ([s.id for s in last.results], last.has_next) == (ids[4:], False)
    assert prolific.list_submissions(client, study.id, page=4, page_size=2).results == ()
    assert [s.id for s in prolific.iter_submissions(client, study.id, page_size=2)] == ids
    assert all(s.study_id == study.id for s in first.results)
    prolific.approve_submission(client, ids[0])
    waiting = prolific.iter_submissions(client, study.id, status="AWAITING_REVIEW")
    assert [s.id for s in waiting] == ids[1:]


def test_approve_and_reject_with_a_category(client, server):
    study = published(client)
    good, bad, busy = (
        take_part(server, study.id, p, code) for p, code in (("P1", "C1DONE"), ("P2", "C1DONE"), ("P3", None))
    )
    assert prolific.approve_submission(client, good).status == "APPROVED"
    assert prolific.approve_submission(client, good).status == "APPROVED"  # repeat ignored
    rejected = prolific.reject_submission(client, bad, category="FAILED_INSTRUCTIONS", message=REJECTION)
    assert rejected.status == "REJECTED"
    with pytest.raises(prolific.ProlificValidationError) as caught:
        prolific.approve_submission(client, busy)
    assert "its status is ACTIVE, and only submissions AWAITING REVIEW can be reviewed" in str(caught.value)


def test_reject_needs_a_known_category_and_a_long_message(client):
    with pytest.raises(ValueError, match="unknown rejection category 'RUDE'"):
        prolific.reject_submission(client, "0" * 24, category="RUDE", message=REJECTION)
    with pytest.raises(ValueError, match="at least 100 characters"):
        prolific.reject_submission(client, "0" * 24, category="LOW_EFFORT", message="Too short")


def test_the_server_refuses_a_short_rejection_message_too(client, server):
    status, _ = api_raw(
        server,
        "POST",
        f"/api/v1/submissions/{'0' * 24}/transition/",
        token=server.token,
        body={"action": "REJECT", "message": "no"},
    )
    assert status == 404  # an unknown submission
    study = published(client)
    submission_id = take_part(server, study.id, "P1")
    status, body = api_raw(
        server,
        "POST",
        f"/api/v1/submissions/{submission_id}/transition/",
        token=server.token,
        body={"action": "REJECT", "message": "no"},
    )
    assert status == 400
    assert set(body["error"]["detail"]) == {"rejection_category", "message"}


def test_bulk_approve(client, server):
    study = published(client)
    ids = [take_part(server, study.id, f"P{n}") for n in range(2)]
    busy = take_part(server, study.id, "P9", code=None)
    prolific.bulk_approve(client, [*ids, busy])
    assert [prolific.get_submission(client, i).status for i in (*ids, busy)] == ["APPROVED", "APPROVED", "ACTIVE"]
    with pytest.raises(ValueError):
        prolific.bulk_approve(client, [])


def test_request_return(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P1")
    asked = prolific.request_return(client, submission_id, reasons=["Failed the consent step"])
    assert asked.return_requested is True


def test_returned_and_timed_out_submissions_free_their_places(client, server):
    study = published(client, places=2)
    first = take_part(server, study.id, "P1", code=None)
    second = take_part(server, study.id, "P2", code=None)
    assert prolific.get_study(client, study.id).places_taken == 2
    admin(server, "POST", "/_local/return", {"submission_id": first})
    admin(server, "POST", "/_local/time-out", {"submission_id": second})
    statuses = {s.participant_id: s.status for s in prolific.iter_submissions(client, study.id)}
    assert statuses == {"P1": "RETURNED", "P2": "TIMED-OUT"}
    assert prolific.get_study(client, study.id).places_taken == 0
    take_part(server, study.id, "P3")  # a freed place is open to someone else


def test_bonus_set_up_then_paid(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P1")
    take_part(server, study.id, "P2")
    bonus = prolific.set_up_bonuses(client, study.id, {submission_id: 150, "P2": 25})
    assert (bonus.study_id, bonus.amount, bonus.fees, bonus.total_amount) == (study.id, 175, 58, 233)
    (row,) = admin(server, "GET", "/_local/bonuses")
    assert row["rows"] == [[submission_id, 150], ["P2", 25]] and row["times_paid"] == 0
    before = admin(server, "GET", "/_local/state")["balance"]
    prolific.pay_bonuses(client, bonus.id)
    assert admin(server, "GET", "/_local/state")["balance"] == before - 233
    assert admin(server, "GET", "/_local/bonuses")[0]["times_paid"] == 1


def test_bonus_for_someone_outside_the_study_names_them(client, server):
    study = published(client)
    take_part(server, study.id, "P1")
    with pytest.raises(prolific.ProlificValidationError) as caught:
        prolific.set_up_bonuses(client, study.id, {"P1": 100, "STRANGER": 100})
    assert caught.value.fields == {"csv_bonuses": ("Not participants of this study: STRANGER.",)}


def test_paying_a_bonus_with_a_short_balance_says_to_top_up(client, server):
    study = published(client)
    take_part(server, study.id, "P1")
    bonus = prolific.set_up_bonuses(client, study.id, {"P1": 100})
    admin(server, "POST", "/_local/balance", {"balance": 10})
    with pytest.raises(prolific.ProlificInsufficientFundsError, match="Top up"):
        prolific.pay_bonuses(client, bonus.id)


def screen_out_study(client, *, slots: int = 1, places: int = 3) -> prolific.Study:
    codes = prolific.standard_codes("C1DONE", "C2OUT", screen_out_reward=20, screen_out_slots=slots)
    return published(client, completion_codes=tuple(codes), places=places)


def test_a_screen_out_code_screens_out_pays_the_fixed_reward_and_frees_the_place(client, server):
    """Issue 36: FIXED_SCREEN_OUT_PAYMENT ends in SCREENED OUT (the place freed); when its slots are
    used up the study pauses, and a later one is left for review with a return requested."""
    study = screen_out_study(client, slots=1, places=1)
    out = take_part(server, study.id, "P1", code="C2OUT")
    assert prolific.get_submission(client, out).status == "SCREENED OUT"
    assert admin(server, "GET", "/_local/state")["screened_out_paid"] == 20
    study = prolific.get_study(client, study.id)
    assert (study.places_taken, study.status) == (0, "PAUSED")
    assert study.ending_codes() == frozenset({"C2OUT"})
    prolific.start_study(client, study.id)
    late = take_part(server, study.id, "P2", code="C2OUT")
    late_sub = prolific.get_submission(client, late)
    assert (late_sub.status, late_sub.return_requested) == ("AWAITING REVIEW", True)


def test_a_screen_out_reward_must_be_below_the_reward_and_have_slots(client, server):
    bad = [{"action": "FIXED_SCREEN_OUT_PAYMENT", "fixed_screen_out_reward": 500, "slots": 0}]
    codes = (
        prolific.completion_code("C1DONE", "COMPLETED"),
        prolific.completion_code("C2OUT", "FIXED_SCREENOUT", actions=bad),
    )
    status, body = api_raw(
        server, "POST", "/api/v1/studies/", token=server.token, body=draft("batch-9", completion_codes=codes).to_api()
    )
    problems = " ".join(body["error"]["detail"]["completion_codes"])
    assert status == 400 and "below the study's reward" in problems and "slots" in problems
    with pytest.raises(ValueError, match="positive reward and at least one slot"):
        prolific.standard_codes("C1DONE", "C2OUT", screen_out_reward=0, screen_out_slots=1)


def test_the_participant_returns_a_submission_they_are_asked_to_return(client, server):
    study = published(client)
    browser = Browser(server.url)
    started = browser.post("/participant/start", {"study_id": study.id, "participant_id": "P1"})
    submission_id = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(started.location).query))["SESSION_ID"]
    landed = browser.get(prolific.completion_url("C2FAIL", base=server.completion_url))
    assert "id='return'" in landed.text  # the page offers the return Prolific asks for
    assert browser.post("/participant/return", {"submission_id": "0" * 24}).status == 404
    stranger = Browser(server.url)
    stranger.post("/participant/start", {"study_id": study.id, "participant_id": "P2"})
    assert stranger.post("/participant/return", {"submission_id": submission_id}).status == 404  # not theirs
    returned = browser.post("/participant/return", {"submission_id": submission_id})
    assert returned.status == 200 and "RETURNED" in returned.text
    assert prolific.get_submission(client, submission_id).status == "RETURNED"
    with pytest.raises(prolific.ProlificError, match="only submissions ACTIVE or AWAITING REVIEW"):
        prolific.request_return(client, submission_id, reasons=["again"])
