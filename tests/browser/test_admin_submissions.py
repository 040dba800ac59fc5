"""The admin's list of submissions (issue 36): at 1,400 px every column is in view (the
*Verified* column was cut off), and its batch filter names each batch with its project."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotation.models import Submission
from annotation.services.batches import batch_create
from tests.browser.test_researcher_admin import log_in
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROBLEM = "completion token missing or wrong; no saved answers on our side"


def submissions() -> None:
    """Four projects with a "Demo batch" each and Prolific-like submissions with a problem."""
    from annotation.models import Team

    team = Team.objects.get(name="Lead lab")
    for n in range(4):
        project = ProjectFactory(name=f"Study {n + 1}", team=team)
        ItemFactory(project=project)
        batch = batch_create(project=project, name="Demo batch", items_per_unit=1, assignments_per_unit=1)
        for k in range(3):
            Submission.objects.create(
                batch=batch,
                ref=f"6745a1b2c3d4e5f60718293{n}{k}",
                posting_ref=f"6745a1b2c3d4e5f607182930{n}",
                participant_ref=f"5f9e8d7c6b5a4f3e2d1c0b9a{n}{k}",
                channel_status="AWAITING REVIEW",
                problem=PROBLEM,
                submitted_at=timezone.now(),
            )


def test_every_column_fits_at_1400_px_and_batches_are_told_apart(live_server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        log_in(page, live_server)
        submissions()
        page.goto(live_server.url + "/admin/annotation/submission/")
        right = page.evaluate(
            "document.querySelector('#result_list thead th:last-child').getBoundingClientRect().right"
        )
        results = page.evaluate("document.querySelector('#changelist .results').getBoundingClientRect().right")
        verified = page.evaluate(
            "document.querySelector('#result_list th.column-verified').getBoundingClientRect().right"
        )
        assert verified <= 1400 and right <= results + 1 and right <= 1400, (verified, right, results)
        filters = page.inner_text("#changelist-filter")
        assert all(f"Study {n} · Demo batch" in filters for n in (1, 2, 3, 4)), filters
    finally:
        context.close()
