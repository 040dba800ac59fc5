"""SCDE on Prolific (the local Prolific-compatible endpoint), with a consent page.

The researcher makes a batch of the five passages for two participants with its study settings
typed in the batch form (the consent text in its study file) and publishes it after the cost page. Two
participants take part from the endpoint's simulator: each agrees to the consent, fills the
blanks and is sent back to Prolific with the study's completion code. A third person comes with
a made-up session id and is turned away before any work. The researcher syncs (both submissions
verified), runs quality and reviews: the careful one approved, the other rejected with a message
long enough for Prolific's rule and a category."""

from __future__ import annotations

import re

import pytest

from annotation.models import Assignment
from tests.conftest import data_file

from . import annotators, recruits
from .checks import NO_ADJUDICATION, NO_CHECKS, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CAREFUL, CARELESS = "5f0c1a2b3c4d5e6f70819203", "5f0c1a2b3c4d5e6f70819204"
STUDY = {
    "name": "Fill the blanks of five short passages",
    "description": "Choose, for each blank of a passage, the sentence that fits it. Five passages.",
    "reward": "2.00",
    "estimated_minutes": 15,
    "devices": ["desktop"],
}
CONSENT = """consent:
  text: Your answers are used for research on reading comprehension and published without your id.
"""
FEEDBACK = (
    "Your choices for the blanks disagreed with the passages' answer key on most blanks, far more often "
    "than chance would allow, so the submission cannot be approved."
)


def agree(page) -> None:
    assert "research on reading comprehension" in page.inner_text("#consent")
    with page.expect_navigation():
        page.click("#consent-yes")
    page.wait_for_selector("#page-form")


def test_scde_on_prolific_with_consent(researcher, person, prolific, live_server, no_failed_requests):
    project = researcher.create_project(
        name="SCDE on Prolific", kind="scde", language="en", settings={"min_seconds": 0}
    )
    researcher.import_file(project, data_file("scde", "made_up.dev.json"))
    researcher.import_file(project, data_file("scde", "made_up.test.json"))
    batch = researcher.create_batch(
        project,
        name="prolific round 1",
        items_per_unit=5,
        annotators_per_item=2,
        channel="prolific",
        channel_settings=STUDY,
        study=CONSENT,
    )
    researcher.publish(batch)
    study = batch.units.get().channel_ref

    for participant, who in ((CAREFUL, 0), (CARELESS, 1)):
        page = person()
        annotator = recruits.prolific_participant(
            page, prolific, study, participant, live_server.url, annotators.scde, who, consent=agree
        )
        annotator.work()
        assert page.url.startswith(prolific.completion_url), page.url
        assert page.inner_text("#status") == "AWAITING REVIEW"

    # a made-up session under a real participant's id: refused at the door, no place taken
    forger = person()
    query = f"PROLIFIC_PID={CAREFUL}&STUDY_ID={study}&SESSION_ID=0123456789abcdef01234567"
    forger.goto(f"{live_server.url}/prolific/?{query}")
    assert not forger.locator("#page-form").count()
    assert "Please open the study again from Prolific." in forger.inner_text("body")
    assert Assignment.objects.filter(unit__batch=batch).count() == 2

    assert re.search(r"2 verified, 0 flagged", researcher.sync(batch))
    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)
    assert "Annotators kept\t1 of 2" in report

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 10

    assert "1 approved" in researcher.review(batch, reject_feedback=FEEDBACK)
    statuses = dict(prolific.store.rows("SELECT participant_id, status FROM submissions"))
    assert statuses == {CAREFUL: "APPROVED", CARELESS: "REJECTED"}
    no_failed_requests(allowed=("/prolific/?",))  # the forger's refusal
