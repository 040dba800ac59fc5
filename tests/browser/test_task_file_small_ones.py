"""Issue 36's small ones that live in the browser: a page's minimum time survives a reload (the
wait counts from the first showing and the save then goes through), number keys answer the
comprehension check and the exit survey, a span is added once, and each span label has its own
colour with the label also in words."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.models import Participation, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.factories import TeamFactory

from .taskfile_driver import TaskFilePage

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks"
SLOW = """title: A slow page
item:
  id: id
  required: [text]
  show:
    - key: text
      label: Text
pages:
  - id: rate
    title: Rate it
    min_seconds: 4
    questions:
      - id: fluency
        type: likert
        prompt: How fluent is it?
        size: 5
"""
STUDY = """consent:
  title: Taking part
  text: Your answers are used for research.
comprehension:
  attempts: 2
  questions:
    - id: many_answers
      type: single_choice
      prompt: May an item have more than one right answer?
      options: ["no", "yes"]
      shortcuts: true
    - id: look_up
      type: single_choice
      prompt: May you look answers up on the web?
      options: ["yes", "no"]
      shortcuts: true
  answers:
    many_answers: "no"
    look_up: "no"
exit_survey:
  questions:
    - id: difficulty
      type: likert
      prompt: How hard was the task?
      size: 5
"""


def invite_url(live_server, task: str, items: bytes, *, study: str = "") -> str:
    project = project_create(name="Small ones", team=TeamFactory(), task_file=task)
    items_import(project=project, data=items, filename="items.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1, study=study)
    return live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token])


def start(page, url: str) -> None:
    page.goto(url)
    with page.expect_navigation():
        page.click("button[type=submit]")


def test_the_minimum_time_counts_from_the_first_showing_across_a_reload(live_server, page):
    start(page, invite_url(live_server, SLOW, b'{"id": "t1", "text": "A text."}\n'))
    annotator = TaskFilePage(page)
    annotator.ready()
    assert page.is_disabled("#page-form button[type=submit]")
    first = page.input_value("input[name=shown]")
    time.sleep(2.5)
    page.reload()
    annotator.ready()
    # the reloaded page sends the first showing's note again (the server counts from it)
    assert page.input_value("input[name=shown]") == first
    assert page.is_disabled("#page-form button[type=submit]")
    annotator.press("3")  # the Likert answered with its number key
    page.wait_for_function("() => !document.querySelector('#page-form button[type=submit]').disabled")
    annotator.save()
    page.wait_for_function("() => !document.querySelector('#page-form')", timeout=10_000)
    assert "Please take at least" not in page.content()
    assert Response.objects.get().answers["rate"]["fluency"] == 3


def test_number_keys_answer_the_comprehension_check_and_the_exit_survey(live_server, page):
    task = (EXAMPLES / "sentiment" / "task.yaml").read_text(encoding="utf-8")
    review = json.dumps({"review_id": "r1", "text": "Works well."}).encode() + b"\n"
    start(page, invite_url(live_server, task, review, study=STUDY))
    with page.expect_navigation():
        page.click("#consent-yes")
    page.wait_for_selector("#comprehension-form[data-taskfile]", state="attached")
    page.keyboard.press("1")  # many_answers: "no"
    page.keyboard.press("2")  # look_up: "no"
    assert page.is_checked("input[name=many_answers][value=no]") and page.is_checked("input[name=look_up][value=no]")
    with page.expect_navigation():
        page.click("#check-answers")
    annotator = TaskFilePage(page)
    annotator.ready()
    annotator.press("1")
    annotator.save()
    page.wait_for_selector("#exit-survey-form[data-taskfile]", state="attached")
    page.keyboard.press("4")
    assert page.is_checked("input[name=difficulty][value='4']")
    with page.expect_navigation():
        page.click("#send-survey")
    assert Participation.objects.get().exit_answers == {"difficulty": 4}


def test_a_span_is_added_once_and_each_label_has_its_colour_and_its_words(live_server, page):
    folder = EXAMPLES / "named_entities"
    first = (folder / "sentences.jsonl").read_bytes().splitlines()[0] + b"\n"
    start(page, invite_url(live_server, (folder / "task.json").read_text(encoding="utf-8"), first))
    annotator = TaskFilePage(page)
    annotator.ready()
    sentence = "Maria Lindqvist joined Northwind Analytics in Oslo last spring."
    name, firm = (0, len("Maria Lindqvist")), (sentence.index("Northwind"), sentence.index(" in Oslo"))
    annotator.mark_span("entities", *name, label="PER")
    annotator.mark_span("entities", *name, label="PER")  # the same again: refused
    annotator.mark_span("entities", *firm, label="ORG")
    assert annotator.spans("entities") == [
        {"start": 0, "end": 15, "text": "Maria Lindqvist", "label": "PER"},
        {"start": firm[0], "end": firm[1], "text": "Northwind Analytics", "label": "ORG"},
    ]
    marks = page.evaluate(
        """() => Array.from(document.querySelectorAll("[data-span-text='entities'] mark")).map(m => ({
             colour: m.getAttribute('data-colour'), background: getComputedStyle(m).backgroundColor,
             words: getComputedStyle(m, '::after').content}))"""
    )
    assert [m["colour"] for m in marks] == ["0", "1"]
    assert marks[0]["background"] != marks[1]["background"]
    assert "Person" in marks[0]["words"] and "Organisation" in marks[1]["words"]
    button = page.locator("[data-for='entities'][data-span-label='ORG']")
    assert button.get_attribute("data-colour") == "1"
