"""ReCAM on Mechanical Turk (the local MTurk-compatible endpoint), with somebody forging work.

The researcher publishes two HITs of two labeled items, two assignments each, after the cost
page. Two workers accept both HITs on the endpoint's worker site and work inside its frame: one
follows the gold, one does not. A third person, who knows a HIT id and the careful worker's id,
opens our page under a made-up assignment id and answers everything wrong. The researcher syncs,
runs quality and reviews: the forged work is held apart (marked in the raw export, absent from
the clean one) and changes nothing about the careful worker, whose real assignments are approved
on the endpoint, while the careless worker's are rejected with the researcher's feedback."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from annotation.models import Assignment, Item
from tests.conftest import data_file

from . import annotators, recruits
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CAREFUL, CARELESS = "A1CAREFULWORKER", "A2CARELESSWORKER"
FEEDBACK = "Most of your answers disagreed with the answer key; please read the instructions before the next task."


def test_recam_on_mturk_with_a_forger(researcher, person, mturk, live_server, no_failed_requests):
    project = researcher.create_project(name="ReCAM on MTurk", kind="recam", language="en")
    researcher.import_file(project, data_file("recam", "Task_1_dev.sample.jsonl"))
    items = list(Item.objects.filter(project=project).order_by("id")[:4])
    batch = researcher.create_batch(
        project,
        name="mturk round 1",
        items_per_unit=2,
        annotators_per_item=2,
        channel="mturk",
        external_ids=[item.external_id for item in items],
    )
    researcher.publish(batch)
    hits = list(batch.units.order_by("position").values_list("channel_ref", flat=True))
    assert len(hits) == 2 and all(hits)

    sites = {}
    for worker, who in ((CAREFUL, 0), (CARELESS, 1)):
        site = sites[worker] = person()
        for hit in hits:
            annotator = recruits.mturk_worker(site, mturk, worker, hit, annotators.recam, who)
            annotator.work()
            recruits.mturk_submit(annotator)
            site.goto(mturk.url + "/worker/")

    # the forger: our page under the careful worker's id and a made-up assignment id
    forger = annotators.Annotator(person(), annotators.recam, who=1)
    query = {"assignmentId": "FORGED3X9", "hitId": hits[0], "workerId": CAREFUL, "turkSubmitTo": mturk.url}
    forger.page.goto(live_server.url + "/mturk/?" + urlencode(query))
    forger.work()
    forged = Assignment.objects.get(channel_assignment_id="FORGED3X9")
    assert forged.annotator.external_id == CAREFUL and all(r.completed_at for r in forged.responses.all())

    assert "4 verified" in researcher.sync(batch)
    forged.refresh_from_db()
    assert not forged.confirmed and forged.unconfirmed_reason

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)
    assert "Annotators kept\t1 of 2" in report  # the forged work counts neither for nor against anybody

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    raw = downloads["raw.csv"].rows
    assert len(raw) == 10 and sum(row["confirmed"] in ("False", "false", "0") for row in raw) == 2
    clean = downloads["clean.csv"].rows
    assert len(clean) == 4 and {row["annotator"] for row in clean} == {CAREFUL}

    assert "2 approved" in researcher.review(batch, reject_feedback=FEEDBACK)
    statuses = {
        (row["worker_id"], row["status"]) for row in mturk.store.rows("SELECT worker_id, status FROM assignments")
    }
    assert statuses == {(CAREFUL, "Approved"), (CARELESS, "Rejected")}
    # each worker reads the outcome on the worker site: the rejected one with the feedback
    careless = sites[CARELESS]
    careless.goto(mturk.url + "/worker/")
    assert careless.locator("text=Rejected").count() == 2
    assert careless.locator(".feedback").all_inner_texts() == [f"Requester's feedback: {FEEDBACK}"] * 2
    sites[CAREFUL].goto(mturk.url + "/worker/")
    assert sites[CAREFUL].locator("text=Approved").count() == 2
    no_failed_requests()
