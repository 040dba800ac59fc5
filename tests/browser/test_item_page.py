"""A researcher in a real browser opens an item from the quality report, reads its two GCRC
annotations side by side with the disagreements marked, rejects one with a note, runs quality
again, and sees the run drop it for the researcher's reason."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Response
from quality.models import ResponseDecision
from quality.services.runs import quality_run_create
from tests.annotation.test_adjudication import annotate, gcrc_batch
from tests.browser.test_quality_report import log_in
from tests.gcrc.test_export import FIRST, SECOND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_rejects_one_annotation_and_the_next_run_drops_it(live_server, page):
    project, batch = gcrc_batch(stage=False)
    annotate(batch, FIRST)
    second = annotate(batch, SECOND)
    quality_run_create(project=project)
    log_in(page, live_server)
    page.goto(live_server.url + reverse("quality:report", args=[project.pk]))
    with page.expect_navigation():
        page.click("text=gcrc_hand_1")
    assert page.locator("tr.disagree").evaluate_all("rows => rows.map(r => r.dataset.field)") == [
        "a_error",
        "d_evidence",
    ]
    cell = page.locator(f"td[data-researcher='{second.pk}']")
    cell.locator("input[name=note]").fill("picked sentences at random")
    with page.expect_navigation():
        cell.locator("button[value=reject]").click()
    assert "Rejected" in page.locator(f"td[data-researcher='{second.pk}']").inner_text()
    page.goto(live_server.url + reverse("quality:report", args=[project.pk]))
    with page.expect_navigation():
        page.click("input[value='Run quality now']")
    page.goto(live_server.url + reverse("quality:item", args=[project.pk, second.item_id]))
    verdict = page.locator(f"td[data-verdict='{second.pk}']").inner_text()
    assert "dropped" in verdict and "rejected by researcher: picked sentences at random" in verdict
    latest = ResponseDecision.objects.filter(response=second).order_by("-run_id").first()
    assert not latest.keep
    assert ResponseDecision.objects.filter(run=latest.run, keep=True).count() == Response.objects.count() - 1
