"""A researcher in a real browser runs quality on a project with collected answers and sees the
headline figures, the agreement table and the plots (the images load; the numbers are the API's)."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import Item
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.models import QualityRun
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import ProjectFactory
from tests.gcrc.test_export import FIRST, RECORD, SECOND, save_answer
from tests.quality.conftest import build_annotated_project
from tests.scde.test_service_flow import answer_unit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-test-password"


def log_in(page, live_server) -> None:
    get_user_model().objects.create_superuser("lead", "lead@example.org", PASSWORD)
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "lead")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_researcher_runs_quality_and_sees_figures_and_plots(live_server, page, recam_dev_bytes):
    project = build_annotated_project(recam_dev_bytes, name="Browser quality").project
    log_in(page, live_server)
    page.goto(live_server.url + reverse("quality:report", args=[project.pk]))
    assert page.locator("#headline").count() == 0  # no run yet
    with page.expect_navigation():
        page.click("input[value='Run quality now']")
    run = QualityRun.objects.get(project=project)
    assert run.status == QualityRun.Status.DONE

    page.wait_for_function("() => Array.from(document.querySelectorAll('#plots img')).every(i => i.complete)")
    loaded = page.evaluate(
        "() => Array.from(document.querySelectorAll('#plots img')).map(i => [i.dataset.plot, i.naturalWidth])"
    )
    assert len(loaded) >= 4 and all(width > 0 for _, width in loaded), loaded

    api = page.request.get(live_server.url + reverse("api-quality-run-detail", args=[run.pk])).json()
    headline = page.locator("#headline").inner_text()
    assert f"{api['headline']['annotators_kept']} / {api['headline']['annotators_dropped']}" in headline
    assert f"{api['headline']['annotations_kept']} / {api['headline']['annotations_dropped']}" in headline
    for field in api["agreement"]:
        row = page.locator(f"#agreement tr[data-field='{field['field']}']")
        shown = {cell: row.locator(f"[data-figure='{cell}']").inner_text() for cell in ("n_items", "alpha", "cohen")}
        assert shown["n_items"] == str(field["n_items"])
        for cell, value in (("alpha", field["alpha"]["value"]), ("cohen", field["cohen"]["mean"])):
            # a missing figure is its dash with a short word (the reason is the cell's title)
            assert shown[cell] == ("— n/a" if value is None else f"{value:.3f}"), (field["field"], cell)

    with page.expect_download() as download:
        page.click("text=Download the report")
    html = open(download.value.path(), encoding="utf-8").read()
    assert html.count("<svg") == len(loaded) and not re.search(r"<(?:script|link|img)\b", html)


def _scde_project():
    project = ProjectFactory(kind="scde", name="Browser SCDE report")
    items_import(project=project, data=data_file("scde", "made_up.dev.json").read_bytes())
    batch = batch_create(project=project, name="b", items_per_unit=3, assignments_per_unit=2)
    invite = invite_link_create(batch=batch)
    assert Item.objects.filter(project=project).count() == 3
    answer_unit(Client(), invite, lambda p: [p["gold"][str(b)] for b in p["blanks"]], visible_ms=300_000, shown_ago=400)
    answer_unit(Client(), invite, lambda p: list(range(len(p["blanks"]))))
    return project


def _gcrc_project():
    project = ProjectFactory(kind="gcrc", language="zh-hans", name="Browser GCRC report")
    items_import(project=project, data=json.dumps({"data": [RECORD]}, ensure_ascii=False).encode())
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    invite = invite_link_create(batch=batch)
    for answers in (FIRST, SECOND):
        response = assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch).responses.get()
        for slug, answer in answers.items():
            save_answer(response.pk, slug, answer)
    return project


@pytest.mark.parametrize("build", [_scde_project, _gcrc_project], ids=["scde", "gcrc"])
def test_the_report_fits_the_window_on_a_desktop_and_a_phone(live_server, browser, build):
    """No horizontal scrolling at 1,400 px nor at a 390 px phone: wide tables scroll in their
    own box; figures are rounded and labelled (no '#' placeholders, no raw keys, no long floats)."""
    project = build()
    run = quality_run_create(project=project)
    assert run.status == QualityRun.Status.DONE, run.error
    for viewport, mobile in (({"width": 1400, "height": 900}, False), ({"width": 390, "height": 844}, True)):
        context = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile, locale="en-US")
        page = context.new_page()
        if viewport["width"] == 1400:
            log_in(page, live_server)
        else:
            page.goto(live_server.url + "/admin/login/")
            page.fill("#id_username", "lead")
            page.fill("#id_password", PASSWORD)
            with page.expect_navigation():
                page.click("input[type=submit]")
        page.goto(live_server.url + reverse("quality:report", args=[project.pk]))
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (project.kind, viewport, width)
        text = page.locator("#content-main").inner_text()
        assert not re.search(r"\d\.\d{4,}", text), re.search(r".{40}\d\.\d{4,}.{20}", text)
        assert "#%" not in text and " # " not in text
        context.close()
