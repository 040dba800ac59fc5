"""Every question type of a task file passes axe-core's WCAG 2.1 A and AA rules, on a desktop
(1,280 px) and a phone (390 px), before and after it is answered: each control has an accessible
name (a slider and a number box by their prompt), contrast, labels and landmarks hold. axe-core
comes bundled in the axe-playwright-python package (nothing is fetched)."""

from __future__ import annotations

import json

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.browser.taskfile_driver import TaskFilePage
from tests.factories import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: one question of each of the nine types
TASK = """title: Every type
item:
  id: id
  show:
    - key: text
      label: Text
    - key: story
      label: Story
      as: sentences
pages:
  - id: all
    questions:
      - {id: one, type: single_choice, prompt: Pick one, options: [yes, no]}
      - {id: many, type: multiple_choice, prompt: Pick some, options: [red, green, blue]}
      - {id: scale, type: likert, prompt: How fluent is it?, size: 5, labels: [Not at all, Fully]}
      - {id: score, type: slider, prompt: Quality from 0 to 100, min: 0, max: 100, labels: [Bad, Perfect]}
      - {id: count, type: number, prompt: How many errors?, integer: true, min: 0}
      - {id: note, type: short_text, prompt: A note, required: false}
      - {id: essay, type: long_text, prompt: Explain, required: false}
      - {id: errors, type: spans, prompt: Mark the errors, source: text, labels: [{value: major, label: Major}]}
      - {id: evidence, type: sentences, prompt: Which sentences?, source: story}
"""
ITEM = {"id": "a", "text": "Great 🙂 product, terrible delivery.", "story": "It came late. It was broken."}
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def violations(page) -> list[str]:
    found = Axe().run(page, options=WCAG).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}" for v in found]


@pytest.mark.parametrize("width", [1280, 390])
def test_every_question_type_passes_axe(live_server, browser, width):
    project = project_create(name="Every type", team=TeamFactory(), task_file=TASK)
    items_import(project=project, data=json.dumps(ITEM).encode(), filename="items.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1)
    context = browser.new_context(viewport={"width": width, "height": 900}, has_touch=width < 500)
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
        page.locator("form button[type=submit]").click()
        driver = TaskFilePage(page)
        driver.ready()
        assert violations(page) == []
        # each control's accessible name is its prompt (or its option)
        assert page.get_by_role("slider", name="Quality from 0 to 100").count() == 1
        assert page.get_by_role("spinbutton", name="How many errors?").count() == 1
        assert page.get_by_role("textbox", name="Explain").count() == 1
        # the server's refusal, shown beside each question (the browser's own check set aside)
        page.evaluate("document.getElementById('page-form').noValidate = true")
        driver.save()
        assert page.locator(".msg.error").count() >= 4
        assert violations(page) == []
        driver.choose("one", "yes")
        driver.slide("score", 70)
        driver.mark_word("errors", "terrible", label="major")
        assert violations(page) == []
    finally:
        context.close()
