"""The whole MTurk loop in real browsers against the local MTurk-compatible endpoint.

A researcher (one browser context, the Django admin) creates an MTurk batch, publishes it after
the cost confirmation; a worker (another context, the endpoint's worker site) signs in, accepts the
HIT and does the ReCAM unit inside the frame, with real clicks and mouse selections, and submits
it to externalSubmit; the researcher syncs, runs quality and approves from the quality run; the
endpoint then holds the assignment as Approved, and the worker's list says so.
"""

from __future__ import annotations

import re

import pytest

from annotation.models import Assignment, Batch, Submission
from annotation.services.imports import items_import
from quality.models import AnnotatorDecision
from tests.conftest import data_file
from tests.factories import ProjectFactory

from .recam_driver import ReCAMPage
from .test_researcher_admin import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORKER = "A1BROWSERWORKER"


def run_action(page, changelist: str, batch: Batch, label: str) -> None:
    """Tick the batch on the changelist and run the action called ``label``."""
    page.goto(changelist)
    page.check(f"input[name=_selected_action][value='{batch.pk}']")
    page.select_option("select[name=action]", label=label)
    with page.expect_navigation():
        page.click("button[name=index]")


def messages(page) -> str:
    return page.inner_text(".messagelist")


def test_publish_accept_work_in_frame_submit_sync_quality_approve(live_server, browser, mturk):
    project = ProjectFactory(name="MTurk reading", kind="recam")
    items_import(
        project=project,
        data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes(),
        filename="Task_1_dev.sample.jsonl",
    )
    ids = list(project.items.order_by("id").values_list("external_id", flat=True)[:2])

    researcher = browser.new_context(viewport={"width": 1280, "height": 900})
    worker = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        admin = researcher.new_page()
        log_in(admin, live_server)
        changelist = live_server.url + "/admin/annotation/batch/"

        # a batch recruited on MTurk, from the admin's "Add batch" form: one unit of two items
        admin.goto(changelist + "add/")
        admin.select_option("#id_project", label=str(project))
        admin.fill("#id_name", "mturk round 1")
        admin.fill("#id_items_per_unit", "2")
        admin.fill("#id_assignments_per_unit", "1")
        admin.select_option("#id_channel", "mturk")
        admin.fill("#id_external_ids", "\n".join(ids))
        with admin.expect_navigation():
            admin.click("input[name=_save]")
        batch = Batch.objects.get(project=project)
        assert batch.channel == "mturk" and batch.units.count() == 1

        # publish: the confirmation shows the cost and the balance, nothing is created before "Publish"
        run_action(admin, changelist, batch, "Publish on the recruiting site (shows the cost first)")
        assert admin.inner_text("#publish-total") == "$0.60"  # $0.50 reward + 20 % fee, one assignment
        assert admin.inner_text("#publish-balance") == "$100.00"
        assert mturk.store.rows("SELECT id FROM hits") == []
        with admin.expect_navigation():
            admin.click("input[type=submit][value^=Publish]")
        assert "Publishing “mturk round 1”" in messages(admin)
        admin.goto(changelist + f"{batch.pk}/change/")
        assert "1 of 1 units published as HITs." in admin.inner_text(".field-recruitment_status")
        hit_id = batch.units.get().channel_ref
        assert [row["id"] for row in mturk.store.rows("SELECT id FROM hits")] == [hit_id]

        # the worker: sign in on the local worker site, accept the HIT
        site = worker.new_page()
        site.goto(mturk.url + "/worker/")
        site.fill("input[name=workerId]", WORKER)
        with site.expect_navigation():
            site.click("text=Sign in")
        assert "MTurk reading" in site.inner_text("main")
        with site.expect_navigation():
            site.click("button:has-text('Accept')")

        # the unit inside MTurk's frame: every page of both items, with clicks and mouse selections
        frame_element = site.wait_for_selector("iframe[title=task]")
        frame = frame_element.content_frame()
        frame.wait_for_selector("#page-form")
        assert frame.url.startswith(live_server.url + "/mturk/work/")
        annotator = ReCAMPage(frame)
        assert annotator.progress().startswith("Item 1 of 2")
        for _ in range(2 * 7):
            annotator.answer_current_page()
        assert "Submit the task" in frame.inner_text("#submit-hit")
        assignment = Assignment.objects.get()
        assert assignment.channel_assignment_id and assignment.annotator.external_id == WORKER
        assert all(r.completed_at for r in assignment.responses.all())

        # the final page posts the completion token to turkSubmitTo/mturk/externalSubmit; as on
        # MTurk the whole worker page moves on: back to the list, the HIT done and no more offered
        with site.expect_navigation(url=re.compile(r"/worker/\?submitted=1$")):
            frame.click("#submit-hit")
        assert site.locator("text=Return this HIT").count() == 0
        assert re.search(r"MTurk reading\s+Submitted", site.inner_text("main"))
        assert site.locator("button:has-text('Accept')").count() == 0
        local = mturk.store.row("SELECT * FROM assignments WHERE id = ?", (assignment.channel_assignment_id,))
        assert (local["worker_id"], local["status"]) == (WORKER, "Submitted")

        # the researcher syncs (the submission is verified), runs quality, and approves
        run_action(admin, changelist, batch, "Sync submissions from the recruiting site now")
        assert "1 posting(s), 1 submission(s): 1 verified, 0 flagged." in messages(admin)
        assert Submission.objects.get().verified

        admin.goto(live_server.url + f"/admin/annotation/project/{project.pk}/change/")
        with admin.expect_navigation():
            admin.click("text=Quality report")
        with admin.expect_navigation():
            admin.click("input[type=submit][value='Run quality now']")
        assert "finished" in messages(admin)
        assert AnnotatorDecision.objects.get(annotator=assignment.annotator).keep

        run_action(admin, changelist, batch, "Review the recruiting site's work from the quality run…")
        admin.check("input[name=operation][value=review]")
        admin.fill("textarea[name=reject_feedback]", "Most answers were wrong or the copied spans were empty.")
        with admin.expect_navigation():
            admin.click("input[type=submit][name=apply]")
        assert re.search(r"1 approved", messages(admin)), messages(admin)

        # the endpoint has it Approved, and the worker sees that on their list
        local = mturk.store.row("SELECT * FROM assignments WHERE id = ?", (assignment.channel_assignment_id,))
        assert local["status"] == "Approved"
        site.goto(mturk.url + "/worker/")
        assert re.search(r"MTurk reading\s+Approved", site.inner_text("main"))
        assert Submission.objects.get().review == "approved"
    finally:
        researcher.close()
        worker.close()
