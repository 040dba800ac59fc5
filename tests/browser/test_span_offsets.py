"""Spans marked in real text, in Chromium: after emoji and ZWJ sequences, across CRLF and lone CR
line breaks, in right-to-left text, among letters outside the Basic Multilingual Plane, with
combining marks, tabs and non-breaking spaces (tests/fixtures/hard_texts/). Each word is marked
with the mouse on a desktop and by touch (a long press's selection, then a tap) on a phone, and
is stored with offsets in code points of the stored text, the text it marks exactly as marked."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.browser.taskfile_driver import TaskFilePage
from tests.conftest import data_file
from tests.factories import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TASK = """title: Hard texts
item:
  id: id
  show:
    - key: text
      label: Text
pages:
  - id: marks
    questions:
      - id: errors
        type: spans
        prompt: Mark the word you were asked to mark
        source: text
        labels: [{value: major, label: Major}, {value: minor, label: Minor}]
  - id: again
    questions:
      - id: plain
        type: spans
        prompt: Mark it again, without a label
        source: text
"""
HARD = [json.loads(line) for line in data_file("hard_texts", "hard_texts.jsonl").read_text("utf-8").splitlines()]


def annotate_all(live_server, page, *, touch: bool) -> list[Response]:
    project = project_create(name="Hard texts", team=TeamFactory(), task_file=TASK)
    items_import(project=project, data=data_file("hard_texts", "hard_texts.jsonl").read_bytes(), filename="h.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=len(HARD), assignments_per_unit=1)
    page.goto(live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
    page.locator("form button[type=submit]").click()
    driver = TaskFilePage(page)
    first = None
    for record in HARD:
        driver.ready()
        if first is None:
            first = Response.objects.get(pk=page.get_attribute("input[name=response]", "value"))
        assert page.locator("[data-span-text=errors]").count() == 1
        if touch:
            driver.touch_select_word("errors", record["word"], label="minor")
        else:
            driver.mark_word("errors", record["word"], label="major")
        marks = page.locator("[data-span-text=errors] mark").all_inner_texts()
        assert marks == [record["word"].replace("\r\n", "\n")], record["id"]
        listed = page.locator("[data-span-list=errors] li span").all_inner_texts()
        assert listed[0].startswith("“" + record["word"] + "”"), record["id"]
        driver.save()
        # the second page: a question without labels (a mouse release marks at once; on a
        # phone, "Mark the selection")
        if touch:
            driver.touch_select_word("plain", record["word"])
        else:
            driver.mark_word("plain", record["word"])
        marks = page.locator("[data-span-text=plain] mark").all_inner_texts()
        assert marks == [record["word"].replace("\r\n", "\n")], record["id"]
        driver.save()
    return list(Response.objects.filter(assignment=first.assignment).select_related("item").order_by("position"))


def check_stored(responses: list[Response], label: str) -> None:
    assert [r.item.payload["id"] for r in responses] == [h["id"] for h in HARD]
    for response, record in zip(responses, HARD, strict=True):
        text, word = record["text"], record["word"]
        assert response.item.payload["text"] == text  # stored as imported, CRLF and all
        start = text.index(word)
        span = {"start": start, "end": start + len(word), "text": word}
        assert response.answers["marks"]["errors"] == [{**span, "label": label}], record["id"]
        assert response.answers["again"]["plain"] == [{**span, "label": None}], record["id"]


def test_mouse_marks_are_stored_as_marked(live_server, page):
    check_stored(annotate_all(live_server, page, touch=False), "major")


def test_touch_marks_are_stored_as_marked(live_server, browser):
    """A phone: touch events, a 390 px screen; the selection settles, then a tap labels it."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    context.set_default_timeout(20_000)
    try:
        check_stored(annotate_all(live_server, context.new_page(), touch=True), "minor")
    finally:
        context.close()
