"""A researcher makes a project from a task file in a real browser: a file with a problem is
refused with the problem shown under the field, the fixed file makes the project, whose page shows
the file and links the preview of its pages."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.kinds import TASK_FILE_KIND
from annotation.models import Project
from tests.conftest import data_file
from tests.factories import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-test-password"


def test_create_from_a_pasted_task_file_with_an_error_then_fixed(live_server, page):
    lead = get_user_model().objects.create_superuser("lead", "lead@example.org", PASSWORD)
    TeamFactory(name="Lead lab", members=[lead])
    page.goto(live_server.url + "/admin/login/")
    page.fill("#id_username", "lead")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")

    good = data_file("task_files", "sentiment.yaml").read_text()
    bad = good.replace("title: Sentiment of product reviews\n", "")
    page.goto(live_server.url + "/admin/annotation/project/add/")
    page.fill("#id_name", "Reviews")
    page.fill("#id_task_file_text", bad)
    with page.expect_navigation():
        page.click("input[name=_continue]")

    # refused in place: the problem under the pasted file, the text kept to be fixed
    row = page.locator(".form-row.field-task_file_text")
    assert "title" in row.locator(".errorlist").inner_text()
    assert page.locator("#id_task_file_text").input_value().strip() == bad.strip()
    assert not Project.objects.exists()

    page.fill("#id_task_file_text", good)
    with page.expect_navigation():
        page.click("input[name=_continue]")
    project = Project.objects.get(name="Reviews")
    assert project.kind == TASK_FILE_KIND and project.task_file.strip() == good.strip()
    assert "Sentiment of product reviews" in page.locator(".field-task_file_shown pre.task-file").inner_text()

    # the preview of its pages, linked from the project's page
    with page.expect_navigation():
        page.click("#preview-link")
    assert page.locator("#no-item").is_visible()  # no items yet: a record may be typed in
    page.fill("#id_record", '{"review_id": "r1", "text": "Works well, sturdy and cheap."}')
    with page.expect_navigation():
        page.click("#preview-record")
    assert page.locator(".preview-page").count() >= 1

    assert "Works well, sturdy and cheap." in page.locator(".preview-page").first.inner_text()
