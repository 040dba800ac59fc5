"""Issue 38: every changelist linked from the admin's index fits its box beside the nav sidebar and
the filters at 1,280 and 1,400 px, with rows in it (the demo, published and worked on, plus a row of
each record the demo makes none of): no column reachable only by scrolling sideways."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.utils import timezone

from annotation.models import BulkPayment, ChannelCall, Project, Submission
from annotation.services.assignments import annotator_join_via_invite
from annotation.services.publish import batch_publish_request
from annotation.services.study import participation_for
from annotation.services.sync import batch_sync
from quality.services.exports import export_job_create
from quality.services.predictions import predictions_import
from quality.services.runs import quality_run_create
from tests.annotation.test_adjudication import annotate, gcrc_batch
from tests.gcrc.test_export import FIRST, SECOND
from tests.mturk_channel.conftest import do_work
from tests.quality.test_hub_demo_folders import ANSWERS, annotate_one_unit, two_annotators

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the results box's width inside and shown, and the rows listed
MEASURE = """() => {
  const box = document.querySelector('#changelist .results');
  const rows = document.querySelectorAll('#result_list tbody tr').length;
  return box ? [box.scrollWidth, box.clientWidth, rows] : [0, 0, rows];
}"""
#: Prolific's ids: 24 hexadecimal digits, no space to wrap at
PROLIFIC_ID = "6745a1b2c3d4e5f60718293{}"


def demo_with_a_row_everywhere(base_url: str, mturk) -> None:
    """`load_demo`; two people work on ReCAM and GCRC, each then has a quality run; the MTurk batch
    is published on the local endpoint, worked on and synced; the rest made by their services (an
    export, a model's predictions, a study participation, a GCRC disagreement) or, for what only a
    recruiting site makes (Prolific submissions, a bonus order, a refused call), as the site would."""
    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    for slug in ("recam", "gcrc"):
        project = Project.objects.get(kind=slug)
        batch, people = two_annotators(project)
        for person in people:
            annotate_one_unit(person, batch, ANSWERS[slug])  # a transactional test: commit hooks run at once
        quality_run_create(project=project)
    recam = Project.objects.get(kind="recam")
    export_job_create(project=recam, dataset="raw", fmt="csv")
    ids = list(recam.items.order_by("pk").values_list("external_id", flat=True)[:3])
    predictions_import(
        project=recam,
        data="\n".join(json.dumps({"id": i, "post_choice": 2}) for i in ids).encode(),
        model="gpt-4o-mini-zero-shot",
    )
    study = recam.batches.exclude(study="").get()
    participation_for(annotator=annotator_join_via_invite(invite=study.invites.first()), batch=study)
    _project, disputed = gcrc_batch()
    annotate(disputed, FIRST)
    annotate(disputed, SECOND)
    Group.objects.create(name="Annotation leads")
    on_mturk = recam.batches.get(channel="mturk")
    batch_publish_request(batch=on_mturk, base_url=base_url)
    do_work(mturk, on_mturk.units.order_by("pk").first(), "A2K9QX7LM3VZ1P")
    batch_sync(batch=on_mturk)
    on_prolific = recam.batches.get(channel="prolific")
    for n in range(2):
        Submission.objects.create(
            batch=on_prolific,
            ref=PROLIFIC_ID.format(n),
            posting_ref=PROLIFIC_ID.format(9),
            participant_ref=f"5f9e8d7c6b5a4f3e2d1c0b9a{n}",
            channel_status="AWAITING REVIEW",
            problem="completion token missing or wrong; no saved answers on our side",
            submitted_at=timezone.now(),
        )
    BulkPayment.objects.create(
        batch=on_prolific, label="Accuracy bonus, round 1", part=1, ref=PROLIFIC_ID.format(8), total=Decimal("12.50")
    )
    ChannelCall.objects.create(
        batch=on_prolific,
        channel="prolific",
        operation="create_study",
        request="POST /api/v1/studies/ {name, description, reward, total_available_places}",
        status=429,
        outcome="failed",
        error="429 Too Many Requests: Request was throttled. Expected available in 38 seconds.",
        duration_ms=4120,
    )


def log_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(base_url + "/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_every_admin_list_fits_at_1280_and_1400_px(live_server, browser, mturk, settings):
    settings.AXES_ENABLE_ACCESS_FAILURE_LOG = True  # axes' third login list gets a row too
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        log_in(page, live_server.url, "someone", "a wrong password")  # the login records' lists
        demo_with_a_row_everywhere(live_server.url, mturk)
        log_in(page, live_server.url, "researcher", "pw")
        links = page.eval_on_selector_all("#content-main th[scope=row] a", "els => els.map(a => a.href)")
        assert len(links) >= 20, links
        wide, empty = [], []
        for width in (1280, 1400):
            page.set_viewport_size({"width": width, "height": 900})
            for link in links:
                page.goto(link)
                inside, shown, rows = page.evaluate(MEASURE)
                path = link.removeprefix(live_server.url)
                if rows == 0:
                    empty.append(path)
                elif inside > shown + 1:
                    wide.append(f"{path} at {width} px: {inside} px of table in a {shown} px box")
        assert not empty, f"lists without a row to measure: {sorted(set(empty))}"
        assert not wide, "\n".join(wide)
    finally:
        context.close()
