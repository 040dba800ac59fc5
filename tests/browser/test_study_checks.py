"""Issue 27 in real browsers, on Prolific's local endpoint: a participant who fails the
comprehension check twice is sent back with the return code and does no work; one who passes on
the second try (the instructions shown again between) does the unit and the exit survey."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.channels import get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Assignment, Item, Participation, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.checks import CheckLine, items_mark_checks
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory

from .recam_driver import PAGES, ReCAMPage
from .taskfile_driver import TaskFilePage
from .test_prolific_loop import demo_like_batch
from .test_researcher_admin import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
STUDY = data_file("studies", "reading_study.yaml").read_text(encoding="utf-8")
FAILS, PASSES = "c0c0c0c0c0c0c0c0c0c0c001", "c0c0c0c0c0c0c0c0c0c0c002"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "sentiment"


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


def test_a_spammer_is_stopped_by_live_quality_after_the_checks_and_the_report_says_so(live_server, browser):
    """A person who gives the same answer to everything, fast, meets a check item in each
    assignment, is stopped after two wrong check answers (the study's `after`), sees the end page;
    the researcher's report shows the stop and the drop, and each too-fast page with its time."""
    task = (EXAMPLES / "task.yaml").read_text(encoding="utf-8")
    # every page saved within ten minutes is flagged too fast: the report lists each with its time
    settings = {"too_fast_page_seconds": 600}
    project = project_create(name="Reviews with checks", team=TeamFactory(), task_file=task, settings=settings)
    items_import(project=project, data=(EXAMPLES / "reviews.jsonl").read_bytes(), filename="reviews.jsonl")
    golds = [i for i in project.items.order_by("id") if i.payload.get("gold_sentiment") in ("positive", "negative")]
    items_mark_checks(
        project=project,
        lines=[CheckLine(n, i.external_id, {"sentiment": i.payload["gold_sentiment"]}) for n, i in enumerate(golds, 1)],
    )
    ordinary = list(Item.objects.data().filter(project=project).order_by("id"))
    batch = batch_create(
        project=project,
        name="with checks",
        items=ordinary,
        items_per_unit=2,
        assignments_per_unit=1,
        study="attention:\n  rate: 0.34\n  stop_below: 0.5\n  after: 2\n",
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
        with page.expect_navigation():
            page.click("button[type=submit]")
        annotator = TaskFilePage(page)
        for _ in range(10):  # two assignments of two items and a check each, at most
            if page.locator("#study-ended").count():
                break
            annotator.ready()
            annotator.choose("sentiment", "neutral")
            annotator.save()
        assert page.get_attribute("#study-ended", "data-step") == "stopped"
        participation = Participation.objects.get()
        assert participation.stop_reason.startswith("live quality: 0 of 2 check answers right")

        quality_run_create(project=project)
        researcher = context.new_page()
        log_in(researcher, live_server)
        researcher.goto(live_server.url + reverse("quality:report", args=[project.pk]))
        section = researcher.inner_text("#check-items")
        assert "1 annotator(s) stopped by live quality" in section
        assert "dropped: live quality: 0 of 2 check answers right" in section
        flagged = researcher.locator("#time-on-task table.time-flagged tbody tr")
        answered = Response.objects.filter(item__check_answer__isnull=True, completed_at__isnull=False).count()
        assert answered >= 3 and flagged.count() == answered  # each item the spammer saved (checks are no data)
        for row in range(flagged.count()):
            cells = flagged.nth(row).locator("td")
            seconds, threshold = cells.nth(3).inner_text(), cells.nth(4).inner_text()
            assert float(seconds.split()[0]) < 600 and threshold.startswith("600"), (seconds, threshold)
    finally:
        context.close()


def test_a_practice_item_shows_the_expected_answer_and_its_explanation(live_server, browser):
    task = (EXAMPLES / "task.yaml").read_text(encoding="utf-8")
    project = project_create(name="Reviews with practice", team=TeamFactory(), task_file=task)
    items_import(project=project, data=(EXAMPLES / "reviews.jsonl").read_bytes(), filename="reviews.jsonl")
    practice = next(i for i in project.items.order_by("id") if i.payload.get("gold_sentiment") == "negative")
    items_mark_checks(
        project=project,
        lines=[CheckLine(1, practice.external_id, {"sentiment": "negative"}, explain="A broken lever: negative.")],
    )
    batch = batch_create(
        project=project,
        name="with practice",
        items=list(Item.objects.data().filter(project=project).order_by("id")[:2]),
        items_per_unit=2,
        assignments_per_unit=1,
        study=f"training:\n  items: [{practice.external_id}]\n",
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
        with page.expect_navigation():
            page.click("button[type=submit]")
        annotator = TaskFilePage(page)
        annotator.ready()
        assert page.is_visible("#practice-note")
        annotator.choose("sentiment", "positive")
        annotator.save()
        feedback = page.locator("#training-feedback")
        assert feedback.get_attribute("data-right") == "no"
        assert "Negative" in feedback.inner_text() and "A broken lever: negative." in feedback.inner_text()
        with page.expect_navigation():
            page.click("#training-continue")
        annotator.ready()
        assert not page.locator("#practice-note").count()  # the work now
        assert Response.objects.get(item=practice).check_passed is False
    finally:
        context.close()
