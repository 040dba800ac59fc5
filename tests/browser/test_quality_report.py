"""A researcher in a real browser runs quality on a project with collected answers and sees the
headline figures, the agreement table and the plots (the images load; the numbers are the API's)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from quality.models import QualityRun
from tests.quality.conftest import build_annotated_project

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
            assert shown[cell] == ("—" if value is None else f"{value:.3f}"), (field["field"], cell)

    with page.expect_download() as download:
        page.click("text=Download the report")
    html = open(download.value.path(), encoding="utf-8").read()
    assert html.count("<svg") == len(loaded) and not re.search(r"<(?:script|link|img)\b", html)
