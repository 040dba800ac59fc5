"""Issue 27 in real browsers, on Prolific's local endpoint: a participant who fails the
comprehension check twice is sent back with the return code and does no work; one who passes on
the second try (the instructions shown again between) does the unit and the exit survey."""

from __future__ import annotations

import re

import pytest

from annotation.channels import get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Assignment, Participation, Response
from tests.conftest import data_file

from .recam_driver import PAGES, ReCAMPage
from .test_prolific_loop import demo_like_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
STUDY = data_file("studies", "reading_study.yaml").read_text(encoding="utf-8")
FAILS, PASSES = "c0c0c0c0c0c0c0c0c0c0c001", "c0c0c0c0c0c0c0c0c0c0c002"


def enter(page, prolific, live_server, study_id: str, participant: str) -> None:
    page.goto(prolific.url + "/participant/")
    page.select_option("select[name=study_id]", study_id)
    page.fill("input[name=participant_id]", participant)
    with page.expect_navigation(url=re.compile(re.escape(live_server.url + "/prolific/"))):
        page.click("button[type=submit]")
    assert "research on reading" in page.inner_text("#consent")
    with page.expect_navigation():
        page.click("#consent-yes")


def attempt(page, *, many_answers: str) -> None:
    assert page.is_visible("#study-instructions")
    page.check(f"input[name=many_answers][value={many_answers}]")
    page.check("input[name=look_up][value=no]")
    with page.expect_navigation():
        page.click("#check-answers")


def test_two_failures_send_the_participant_back_to_return_and_a_second_try_passes(live_server, browser, prolific):
    batch = demo_like_batch()
    batch.study = STUDY
    batch.save(update_fields=["study"])
    get_channel("prolific").publish(batch, base_url=live_server.url)
    study_id = batch.units.first().channel_ref
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        enter(page, prolific, live_server, study_id, FAILS)
        assert "You have 2 attempts" in page.inner_text("#attempts-note")
        attempt(page, many_answers="yes")
        assert "1 more attempt" in page.inner_text("#comprehension-retry")
        attempt(page, many_answers="yes")
        assert "did not pass the check" in page.inner_text("#study-ended")
        with page.expect_navigation(url=re.compile(re.escape(prolific.completion_url))):
            page.click("#study-ended-back")
        assert page.inner_text("#code") == completion_codes(batch)["FAILED_ATTENTION_CHECK"]
        assert page.is_visible("#return-requested")  # Prolific asks for a return, never a rejection
        failed = Assignment.objects.get(annotator__external_id=FAILS)
        assert failed.status == Assignment.Status.RELEASED
        assert not Response.objects.filter(assignment=failed).exclude(answers={}).exists()

        context.clear_cookies()
        page = context.new_page()
        enter(page, prolific, live_server, study_id, PASSES)
        attempt(page, many_answers="yes")
        attempt(page, many_answers="no")
        page.wait_for_selector("#page-form")
        annotator = ReCAMPage(page)
        items = Assignment.objects.get(annotator__external_id=PASSES).item_count
        for _ in range(items * len(PAGES) - 1):
            annotator.answer_current_page()
        annotator.choose("difficulty", "easy")
        with page.expect_navigation():
            page.click("#next")
        page.check("input[name=difficulty][value='2']")
        page.fill("textarea[name=remarks]", "Clear enough.")
        with page.expect_navigation(url=re.compile(re.escape(prolific.completion_url))):
            page.click("#send-survey")
        assert page.inner_text("#code") == completion_codes(batch)["COMPLETED"]
        passed = Participation.objects.get(annotator__external_id=PASSES)
        assert passed.comprehension == "passed" and len(passed.attempts) == 2
        assert passed.exit_answers == {"difficulty": 2, "remarks": "Clear enough."}
    finally:
        context.close()
