"""A researcher in a real browser: admin login -> new project -> "Import items" -> quality -> export."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth import get_user_model

from annotation.kinds import get_kind
from annotation.models import Item, Project
from annotation.services.assignments import NoWorkLeft, annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.responses import next_page_slug
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

from .recam_driver import pick_span

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-test-password"


def log_in(page, live_server) -> None:
    lead = get_user_model().objects.create_superuser("lead", "lead@example.org", PASSWORD)
    TeamFactory(name="Lead lab", members=[lead])  # their only team: new projects go there by default
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "lead")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")
    assert "Site administration" in page.title()


def annotate(invite, *, right: bool) -> None:
    """One annotator works through every unit they can get, through the real services."""
    annotator = annotator_join_via_invite(invite=invite)
    kind = get_kind("recam")
    while True:
        try:
            assignment = assignment_next(annotator=annotator, batch=invite.batch)
        except NoWorkLeft:
            return
        for response in assignment.responses.select_related("item").order_by("position"):
            payload = response.item.payload
            choice = payload["label"] if right else (payload["label"] + 1) % 5
            span = pick_span(payload["article"], skip_words=0, words=4)
            form_data = {
                "pre": {"choice": str(choice)},
                "post": {"choice": str(choice)},
                "second": {"choice": "none"},
                "support_span": {"text": span.text},
                "relation": {"relation": "paraphrase"},
                "summary_span": {"text": span.text},
                "difficulty": {"difficulty": "medium"},
            }
            while (slug := next_page_slug(get_kind("recam"), payload, response.answers)) is not None:
                form = kind.page(payload, slug, response.answers).form_class(
                    form_data[slug], payload=payload, answers=response.answers
                )
                assert form.is_valid(), form.errors
                save_answer(response.pk, slug, form.answer())
                response.refresh_from_db()


def test_researcher_imports_runs_quality_and_downloads_an_export(live_server, page, tmp_path):
    log_in(page, live_server)

    # a new ReCAM project, from the admin's own form
    page.goto(live_server.url + "/admin/annotation/project/add/")
    page.fill("#id_name", "Pilot study")
    page.select_option("#id_kind", "recam")
    with page.expect_navigation():
        page.click("input[name=_continue]")
    project = Project.objects.get(name="Pilot study")
    assert project.team.name == "Lead lab"

    # "Import items": a bad file first (nothing imported, the line named), then the real one
    page.click("text=Import items")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(data_file("recam", "Task_1_dev.sample.jsonl").read_bytes().split(b"\r\n")[0] + b"\r\n{not json\r\n")
    page.set_input_files("input[type=file]", str(bad))
    with page.expect_navigation():
        page.click("input[type=submit][value=Import]")
    assert "line 2" in page.inner_text(".errorlist").lower()
    assert not Item.objects.filter(project=project).exists()

    page.set_input_files("input[type=file]", str(data_file("recam", "Task_1_dev.sample.jsonl")))
    with page.expect_navigation():
        page.click("input[type=submit][value=Import]")
    assert "Imported 20 new items" in page.inner_text(".messagelist")
    assert Item.objects.filter(project=project).count() == 20

    # annotators do the work (one careful, one always wrong) on the first six items
    batch = batch_create(
        project=project,
        name="pilot",
        items=list(project.items.order_by("id")[:6]),
        items_per_unit=3,
        assignments_per_unit=2,
    )
    invite = invite_link_create(batch=batch)
    annotate(invite, right=True)
    annotate(invite, right=False)

    # quality: from the project's page to its report, then "Run quality now"
    page.goto(live_server.url + f"/admin/annotation/project/{project.pk}/change/")
    with page.expect_navigation():
        page.click("text=Quality report")
    with page.expect_navigation():
        page.click("input[type=submit][value='Run quality now']")
    assert "finished" in page.inner_text(".messagelist")
    assert "Responses kept" in page.inner_text("#content-main")

    # download the cleaned annotations as CSV: only the careful annotator's six are kept
    link = page.locator(".exports tr", has_text="clean").locator("a", has_text="CSV")
    with page.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(download.path().read_text(encoding="utf-8-sig"))))
    assert len(rows) == 6
    assert {"support_span", "support_start", "support_end", "difficulty"} <= set(rows[0])
    assert all(row["post_correct"] in ("True", "true", "1") for row in rows)
