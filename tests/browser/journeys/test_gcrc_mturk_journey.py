"""GCRC on Mechanical Turk (the local MTurk-compatible endpoint), with an adjudicator of the
researcher's own: one HIT of two labeled questions for two workers, who work inside the endpoint's
frame in the Chinese interface. The adjudicator (an invite link from the admin, whatever channel
recruited the pair) has nothing to do until the researcher's sync confirms the pair's work with
MTurk, then resolves their disagreements; the researcher runs quality, downloads the final labels
and approves both workers on the endpoint."""

from __future__ import annotations

import pytest

from annotation.models import AdjudicationTask, Item
from tests.conftest import data_file

from . import annotators, recruits
from .checks import NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well
from .test_gcrc_journey import decide, disputed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WORKERS = ("A1FIRSTEXPERT", "A2SECONDEXPERT")
FEEDBACK = "Thank you."


def test_gcrc_on_mturk_with_an_adjudicator(researcher, person, mturk, no_failed_requests):
    project = researcher.create_project(name="GCRC on MTurk", kind="gcrc", language="zh-hans")
    researcher.import_file(project, data_file("gcrc", "dev_GCRCadvrobust.sample.json"))
    items = list(Item.objects.filter(project=project).order_by("id")[:2])
    batch = researcher.create_batch(
        project,
        name="mturk experts",
        items_per_unit=2,
        annotators_per_item=2,
        channel="mturk",
        external_ids=[item.external_id for item in items],
    )
    researcher.enable_adjudication(batch)
    researcher.publish(batch)
    (hit,) = batch.units.values_list("channel_ref", flat=True)

    for who, worker in enumerate(WORKERS):
        annotator = recruits.mturk_worker(person(locale="zh-CN"), mturk, worker, hit, annotators.gcrc, who)
        annotator.work()
        recruits.mturk_submit(annotator)

    adjudicator = person(locale="zh-CN")
    adjudicator.goto(researcher.invite_link(batch, action="Create adjudicator link (one person)"))
    with adjudicator.expect_navigation():
        adjudicator.locator("form button[type=submit]").click()
    assert adjudicator.locator("#done").count()  # MTurk has not confirmed the pair's work yet

    assert "2 verified" in researcher.sync(batch)
    adjudicator.reload()
    for _ in items:
        assert disputed(adjudicator) == ["a_evidence", "b_skill"]
        decide(adjudicator, {"a_evidence": "second", "b_skill": "first"})
    assert not AdjudicationTask.objects.filter(batch=batch, status=AdjudicationTask.Status.OPEN).exists()

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)
    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_STUDY | NO_CHECKS)
    assert len(downloads["final_items.jsonl"].rows) == 2

    assert "2 approved" in researcher.review(batch, reject_feedback=FEEDBACK)
    assert {row["status"] for row in mturk.store.rows("SELECT status FROM assignments")} == {"Approved"}
    no_failed_requests()
