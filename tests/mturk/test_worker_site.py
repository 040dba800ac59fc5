"""The local worker site, driven over HTTP like a browser: list, preview, accept, the
ExternalQuestion frame with MTurk's parameters, externalSubmit, then the requester API."""

from decimal import Decimal

import pytest

from annotation import mturk

from .conftest import Browser, admin, iframe_params, make_hit

TASK_URL = "https://annotate.example.org/mturk/?project=7&batch=2"


@pytest.fixture
def browser(server):
    return Browser(server.url)


def accept(browser, hit):
    return browser.post("/worker/accept", {"hitId": hit.hit_id})


def test_full_loop_from_list_to_approval(mturk_client, server, browser):
    hit = make_hit(mturk_client, url=TASK_URL, title="Read <b>this</b> & answer")
    assert "Sign in" in browser.get("/worker/").text
    listing = browser.sign_in("a1alice")  # ids are upper-cased, like MTurk's
    assert listing.status == 200 and "Worker <b>A1ALICE</b>" in listing.text
    assert "Read &lt;b&gt;this&lt;/b&gt; &amp; answer" in listing.text
    assert "<b>this</b>" not in listing.text

    preview = browser.get(f"/worker/preview?hitId={hit.hit_id}")
    url, params = iframe_params(preview.text)
    assert url == "https://annotate.example.org/mturk/"
    assert params == {"project": "7", "batch": "2", "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": hit.hit_id}

    task = accept(browser, hit)
    assert task.status == 200 and "/worker/task?assignmentId=" in task.url
    url, params = iframe_params(task.text)
    assignment_id = params["assignmentId"]
    assert params == {
        "project": "7",
        "batch": "2",
        "assignmentId": assignment_id,
        "hitId": hit.hit_id,
        "workerId": "A1ALICE",
        "turkSubmitTo": server.url,
    }
    assert mturk.list_assignments_for_hit(mturk_client, hit.hit_id) == []  # accepted is not listed
    assert mturk.get_hit(mturk_client, hit.hit_id).assignments_pending == 1

    # What our ExternalQuestion page posts to turkSubmitTo + "/mturk/externalSubmit".
    done = browser.post(
        params["turkSubmitTo"] + "/mturk/externalSubmit",
        [("assignmentId", assignment_id), ("completion", "tok&<123>"), ("n", "5")],
    )
    assert done.status == 200 and "Thank you" in done.text
    assert "href='/worker/?submitted=1' target='_top'" in done.text  # the top window moves on
    listing = browser.get("/worker/").text
    assert "accept" not in listing.split("<h2>Your assignments</h2>")[0].lower()  # done: not offered again
    [assignment] = mturk.list_assignments_for_hit(mturk_client, hit.hit_id)
    assert (assignment.assignment_id, assignment.worker_id, assignment.status) == (
        assignment_id,
        "A1ALICE",
        "Submitted",
    )
    assert assignment.answers == {"completion": "tok&<123>", "n": "5"}
    assert "<QuestionIdentifier>completion</QuestionIdentifier>" in assignment.answer_xml

    mturk.approve_assignment(mturk_client, assignment_id)
    assert mturk.get_assignment(mturk_client, assignment_id)[0].status == "Approved"
    assert mturk.get_account_balance(mturk_client).available == Decimal("99.40")
    assert "Approved" in browser.get("/worker/").text


def test_second_submission_and_reject_without_feedback_are_refused(mturk_client, server, browser):
    hit = make_hit(mturk_client)
    browser.sign_in("A1BOB")
    _, params = iframe_params(accept(browser, hit).text)
    fields = {"assignmentId": params["assignmentId"], "answer": "C"}
    assert browser.post("/mturk/externalSubmit", fields).status == 200
    again = browser.post("/mturk/externalSubmit", {**fields, "answer": "D"})
    assert again.status == 409 and "Submitted" in again.text
    assert mturk.get_assignment(mturk_client, params["assignmentId"])[0].answers == {"answer": "C"}
    with pytest.raises(ValueError):
        mturk.reject_assignment(mturk_client, params["assignmentId"], feedback="")
    mturk.reject_assignment(mturk_client, params["assignmentId"], feedback="Did not read <the> passage.")
    assert mturk.get_assignment(mturk_client, params["assignmentId"])[0].status == "Rejected"
    # the worker reads the status and the requester's feedback on their list, as on MTurk
    mine = browser.get("/worker/").text.split("<h2>Your assignments</h2>")[1]
    assert "Rejected" in mine and "Requester's feedback: Did not read &lt;the&gt; passage." in mine


def test_forged_submission_is_refused(mturk_client, server, browser):
    hit = make_hit(mturk_client)
    forged = browser.post("/mturk/externalSubmit", {"assignmentId": "3FORGEDASSIGNMENT", "answer": "A"})
    assert forged.status == 404 and "There is no assignment" in forged.text
    preview_id = browser.post("/mturk/externalSubmit", {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "answer": "A"})
    assert preview_id.status == 404
    assert browser.post("/mturk/externalSubmit", {"answer": "A"}).status == 400
    assert admin(server, "GET", "/_local/state")["assignments"] == 0
    assert mturk.list_assignments_for_hit(mturk_client, hit.hit_id) == []


def test_submission_needs_a_field_and_the_right_worker(mturk_client, server, browser):
    hit = make_hit(mturk_client)
    browser.sign_in("A1OWNER")
    _, params = iframe_params(accept(browser, hit).text)
    assert browser.post("/mturk/externalSubmit", {"assignmentId": params["assignmentId"]}).status == 400
    intruder = Browser(server.url)
    intruder.sign_in("A1INTRUDER")
    stolen = intruder.post("/mturk/externalSubmit", {"assignmentId": params["assignmentId"], "a": "1"})
    assert stolen.status == 403
    assert intruder.get(f"/worker/task?assignmentId={params['assignmentId']}").status == 403
    assert mturk.list_assignments_for_hit(mturk_client, hit.hit_id) == []


def test_max_assignments_and_one_assignment_per_worker(mturk_client, server, browser):
    hit = make_hit(mturk_client, max_assignments=1)
    browser.sign_in("A1FIRST")
    assert accept(browser, hit).status == 200
    assert accept(browser, hit).status == 409  # already accepted (and none left)
    second = Browser(server.url)
    second.sign_in("A1SECOND")
    assert hit.title not in second.get("/worker/").text  # not listed: nothing available
    refused = accept(second, hit)
    assert refused.status == 409 and "no more assignments" in refused.text
    assert mturk.get_hit(mturk_client, hit.hit_id).status == "Unassignable"


def test_returned_assignment_frees_the_slot(mturk_client, server, browser):
    hit = make_hit(mturk_client, max_assignments=1)
    browser.sign_in("A1FIRST")
    _, params = iframe_params(accept(browser, hit).text)
    assert browser.post("/worker/return", {"assignmentId": params["assignmentId"]}).status == 200
    assert mturk.get_hit(mturk_client, hit.hit_id).assignments_available == 1
    other = Browser(server.url)
    other.sign_in("A1OTHER")
    assert accept(other, hit).status == 200


def test_locale_requirement_hides_the_hit(mturk_client, server, browser):
    hit = make_hit(mturk_client, requirements=[mturk.locale_requirement(["GB", "IE"])])
    admin(server, "POST", "/_local/workers", {"worker_id": "A1DUBLIN", "country": "IE"})
    browser.sign_in("A1USA")  # new workers are in the US
    assert hit.title not in browser.get("/worker/").text
    assert browser.get(f"/worker/preview?hitId={hit.hit_id}").status == 403
    assert accept(browser, hit).status == 403
    dublin = Browser(server.url)
    dublin.sign_in("A1DUBLIN")
    assert hit.title in dublin.get("/worker/").text
    assert accept(dublin, hit).status == 200


def test_accept_guard_still_allows_preview(mturk_client, server, browser):
    requirement = mturk.approval_rate_requirement(95, actions_guarded="Accept")
    hit = make_hit(mturk_client, requirements=[requirement])  # new workers have 99 %
    admin(server, "POST", "/_local/workers", {"worker_id": "A1SLOPPY", "qualifications": {"000000000000000000L0": 80}})
    browser.sign_in("A1SLOPPY")
    assert hit.title in browser.get("/worker/").text
    preview = browser.get(f"/worker/preview?hitId={hit.hit_id}")
    assert preview.status == 200 and "not qualified to accept" in preview.text
    assert accept(browser, hit).status == 403


def test_group_preview_url(mturk_client, server, browser):
    hit = make_hit(mturk_client)
    browser.sign_in("A1GROUP")
    page = browser.get(mturk.preview_url("local", hit.hit_type_id, local_url=server.url))
    assert page.status == 200 and f"hitId={hit.hit_id}" in page.url
    assert iframe_params(page.text)[1]["assignmentId"] == "ASSIGNMENT_ID_NOT_AVAILABLE"


def test_expired_hit_cannot_be_accepted(mturk_client, server, browser):
    hit = make_hit(mturk_client)
    mturk.expire_hit(mturk_client, hit.hit_id)
    browser.sign_in("A1LATE")
    assert hit.title not in browser.get("/worker/").text
    assert accept(browser, hit).status == 410


def test_pages_are_self_contained(mturk_client, server, browser):
    make_hit(mturk_client)
    page = browser.sign_in("A1CSP")
    assert "http" not in page.text.split("<main>")[0]  # no external stylesheet or script
    assert "<script" not in page.text
