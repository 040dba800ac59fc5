"""The Prolific participant's way in and out in real browsers, against the local Prolific endpoint.

A researcher (one browser context, the Django admin) publishes a batch like the demo's Prolific
batch after the cost confirmation; a participant (another context) opens the endpoint's participant
simulator, picks the study and gives a participant id, lands on the platform's pages, does the
ReCAM unit with real clicks and mouse selections, and is sent back to the endpoint's completion
page, which shows our completion code as recorded; the researcher's sync then verifies it.
"""

from __future__ import annotations

import re

import pytest

from annotation.channels import get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Assignment, Batch, Submission
from annotation.services.batches import batch_create
from annotation.services.demo import MTURK_DEMO_ITEMS_PER_UNIT, PROLIFIC_DEMO_PARTICIPANTS, PROLIFIC_DEMO_SETTINGS
from annotation.services.imports import items_import
from tests.conftest import data_file
from tests.factories import ProjectFactory

from .recam_driver import PAGES, ReCAMPage
from .test_mturk_loop import messages, run_action
from .test_researcher_admin import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PARTICIPANT = "b0b0b0b0b0b0b0b0b0b0b001"  # Prolific ids are 24 hex characters
PUBLISH = "Publish on the recruiting site (shows the cost first)"  # the one publish action, for every channel
SYNC = "Sync submissions from the recruiting site now"


def demo_like_batch() -> Batch:
    """The demo's Prolific batch: two units of three labelled ReCAM items, two participants each."""
    project = ProjectFactory(name="Prolific reading", kind="recam")
    items_import(
        project=project,
        data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes(),
        filename="Task_1_dev.sample.jsonl",
    )
    items = list(project.items.filter(payload__has_key="label").order_by("id")[: 2 * MTURK_DEMO_ITEMS_PER_UNIT])
    return batch_create(
        project=project,
        name="Prolific demo batch",
        items=items,
        items_per_unit=MTURK_DEMO_ITEMS_PER_UNIT,
        assignments_per_unit=PROLIFIC_DEMO_PARTICIPANTS,
        channel="prolific",
        channel_settings=dict(PROLIFIC_DEMO_SETTINGS),
    )


def publish(admin, changelist: str, batch: Batch, prolific) -> str:
    """Publish from the admin after the cost page; the study's id on the endpoint."""
    run_action(admin, changelist, batch, PUBLISH)
    assert "Publish to Prolific" in admin.inner_text("h1")
    assert prolific.store.rows("SELECT id FROM studies") == []  # nothing before "Publish"
    with admin.expect_navigation():
        admin.click("input[type=submit][value^=Publish]")
    assert "Publishing “Prolific demo batch”" in messages(admin)
    studies = prolific.store.rows("SELECT id, status FROM studies")
    assert [row["status"] for row in studies] == ["ACTIVE"]
    return studies[0]["id"]


def do_unit(page, prolific) -> None:
    """Every page of the unit's items; the last save ends on Prolific's completion page."""
    annotator = ReCAMPage(page)
    assert annotator.progress().startswith(f"Item 1 of {MTURK_DEMO_ITEMS_PER_UNIT}")
    for _ in range(MTURK_DEMO_ITEMS_PER_UNIT * len(PAGES) - 1):
        annotator.answer_current_page()
    assert annotator.slug == "difficulty"
    annotator.choose("difficulty", "easy")
    with page.expect_navigation(url=re.compile(re.escape(prolific.completion_url))):
        page.click("#next")


def test_a_participant_takes_part_from_the_simulator_and_comes_back_with_our_code(live_server, browser, prolific):
    batch = demo_like_batch()
    researcher = browser.new_context(viewport={"width": 1280, "height": 900})
    participant = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        admin = researcher.new_page()
        log_in(admin, live_server)
        changelist = live_server.url + "/admin/annotation/batch/"
        study_id = publish(admin, changelist, batch, prolific)

        # the participant: the simulator, the study and a made-up id, then the platform's pages
        site = participant.new_page()
        site.goto(prolific.url + "/participant/")
        site.select_option("select[name=study_id]", study_id)
        site.fill("input[name=participant_id]", PARTICIPANT)
        with site.expect_navigation(url=re.compile(re.escape(live_server.url + "/prolific/"))):
            site.click("button[type=submit]")
        site.wait_for_selector("#page-form")
        do_unit(site, prolific)

        # back on Prolific (the local endpoint): our code, recorded on the submission
        code = completion_codes(batch)["COMPLETED"]
        assert site.inner_text("#participant") == PARTICIPANT
        assert (site.inner_text("#code"), site.inner_text("#status")) == (code, "AWAITING REVIEW")
        assignment = Assignment.objects.get()
        assert assignment.channel_assignment_id == site.inner_text("#submission")
        assert assignment.annotator.external_id == PARTICIPANT
        assert all(r.completed_at for r in assignment.responses.all())

        # the researcher syncs: Prolific's submission checks out (study, session, participant, code)
        run_action(admin, changelist, batch, SYNC)
        assert "on Prolific: 1 posting(s), 1 submission(s): 1 verified, 0 flagged." in messages(admin)
        submission = Submission.objects.get()
        assert submission.verified and submission.assignment == assignment
    finally:
        researcher.close()
        participant.close()


def test_a_participant_who_does_not_consent_is_sent_back_with_the_second_code(live_server, browser, prolific):
    batch = demo_like_batch()
    batch.study = "consent:\n  text: Your answers are used for research on reading.\n"
    batch.save(update_fields=["study"])
    get_channel("prolific").publish(batch, base_url=live_server.url)
    participant = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        site = participant.new_page()
        site.goto(prolific.url + "/participant/")
        site.select_option("select[name=study_id]", batch.units.first().channel_ref)
        site.fill("input[name=participant_id]", PARTICIPANT)
        with site.expect_navigation(url=re.compile(re.escape(live_server.url + "/prolific/"))):
            site.click("button[type=submit]")
        assert "used for research on reading" in site.inner_text("#consent")
        with site.expect_navigation():
            site.click("#consent-no")
        assert "You did not agree" in site.inner_text("#study-ended")
        with site.expect_navigation(url=re.compile(re.escape(prolific.completion_url))):
            site.click("#study-ended-back")
        assert site.inner_text("#code") == completion_codes(batch)["FAILED_ATTENTION_CHECK"]
        assert Assignment.objects.get().status == Assignment.Status.RELEASED
    finally:
        participant.close()
