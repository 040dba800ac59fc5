"""People recruited on a recruiting site, in their own browsers: an MTurk worker on the local
MTurk-compatible endpoint's worker site (the unit inside its frame), and a Prolific participant
coming from the local Prolific-compatible endpoint's participant simulator."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .annotators import Annotator, Answer


def mturk_worker(page: Any, endpoint: Any, worker_id: str, hit_id: str, answer: Answer, who: int) -> Annotator:
    """Sign in on the worker site as `worker_id`, accept the HIT `hit_id` from the list, and
    return the annotator working inside the HIT's frame."""
    page.goto(endpoint.url + "/worker/")
    if page.locator("input[name=workerId]").count():  # not signed in yet
        page.fill("input[name=workerId]", worker_id)
        with page.expect_navigation():
            page.click("text=Sign in")
    with page.expect_navigation():
        page.locator(f"form:has(input[name=hitId][value='{hit_id}']) button:has-text('Accept')").click()
    assert page.locator("iframe[title=task]").count(), page.inner_text("body")
    frame = page.wait_for_selector("iframe[title=task]").content_frame()
    frame.wait_for_selector("#page-form")
    return Annotator(frame, answer, who)


def mturk_submit(annotator: Annotator) -> None:
    """The frame's last page: "Submit the task" posts to the endpoint's externalSubmit."""
    frame = annotator.page
    top = frame.page  # as on MTurk, the whole worker page moves on to the HIT list
    with top.expect_navigation(url=re.compile(r"/worker/\?submitted=1$")):
        frame.click("#submit-hit")
    assert top.locator("text=Return this HIT").count() == 0


def prolific_participant(
    page: Any,
    endpoint: Any,
    study_id: str,
    participant_id: str,
    base_url: str,
    answer: Answer,
    who: int,
    *,
    consent: Callable[[Any], None] | None = None,
) -> Annotator:
    """Take part in the study from the simulator as `participant_id`; lands on the platform
    (on its consent page first where the study asks for one: `consent` answers it)."""
    page.goto(endpoint.url + "/participant/")
    page.select_option("select[name=study_id]", study_id)
    page.fill("input[name=participant_id]", participant_id)
    with page.expect_navigation(url=re.compile(re.escape(base_url + "/prolific/"))):
        page.click("button[type=submit]")
    if consent is not None:
        consent(page)
    page.wait_for_selector("#page-form")
    return Annotator(page, answer, who)
