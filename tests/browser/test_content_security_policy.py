"""Under the Content-Security-Policy, the researcher's and the annotator's pages run in a real
browser without one violation: the admin (with its widgets), the import page, the quality
report, Swagger UI from drf-spectacular's sidecar, and an invited annotator's pages."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Item
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.conftest import data_file
from tests.factories import ProjectFactory

from .recam_driver import ReCAMPage

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-test-password"


def watch(page, violations: list[str]) -> None:
    """Chromium reports each blocked script, style, frame or image on the console."""
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )


def test_pages_run_without_a_policy_violation(context, live_server):
    get_user_model().objects.create_superuser("lead", "lead@example.org", PASSWORD)
    project = ProjectFactory(name="CSP", kind="recam", language="en")
    items_import(project=project, data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes())
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    invite = invite_link_create(batch=batch)
    item = Item.objects.filter(project=project).first()

    violations: list[str] = []
    page = context.new_page()
    watch(page, violations)
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "lead")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")
    for path in [
        "/admin/",
        "/admin/annotation/project/add/",
        f"/admin/annotation/project/{project.pk}/change/",
        f"/admin/annotation/project/{project.pk}/import/",
        f"/admin/annotation/item/{item.pk}/change/",
        "/admin/annotation/batch/",
        f"/quality/projects/{project.pk}/",
    ]:
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
    page.goto(live_server.url + "/api/docs/")
    page.wait_for_selector(".swagger-ui .info")  # Swagger UI's script ran and drew the schema

    annotator = context.new_page()
    watch(annotator, violations)
    flow = ReCAMPage(annotator)
    flow.start_from_invite(live_server.url + f"/i/{invite.token}/")
    while flow.slug != "relation":  # the span pages need annotate.js (selection fills the box)
        flow.answer_current_page()  # and saves it
    assert violations == []
