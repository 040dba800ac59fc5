"""A task-file page in a real browser: number keys answer choices and Likert scales, spans are
marked by dragging the mouse and labelled, sentences ticked, a question appears when the answer
it depends on is given, Markdown is shown as formatted text (raw HTML as text), and the next
item, swapped in by annotate.js, works the same."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.browser.taskfile_driver import TaskFilePage
from tests.factories import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TASK = """title: Reading check
item:
  id: id
  required: [story, note]
  show:
    - key: note
      label: Note
      as: markdown
    - key: story
      label: Story
    - key: evidence_text
      label: Numbered
      as: sentences
pages:
  - id: main
    title: Questions
    questions:
      - id: mood
        type: single_choice
        prompt: What is the mood?
        options: [{value: happy, label: Happy}, {value: sad, label: Sad}, {value: calm, label: Calm}]
      - id: why
        type: short_text
        prompt: Why sad?
        show_if: {question: mood, equals: sad}
      - id: sure
        type: likert
        prompt: How sure are you?
        size: 5
        labels: [Not sure, Very sure]
      - id: names
        type: spans
        prompt: Mark the names
        source: story
        labels: [{value: PER, label: Person}, {value: ORG, label: Organisation}]
        required: false
      - id: evidence
        type: sentences
        prompt: Which sentences tell the mood?
        source: evidence_text
      - id: score
        type: slider
        prompt: Score
        min: 0
        max: 100
        step: 5
"""
ITEMS = [
    {
        "id": "s1",
        "note": "**Read** <b>carefully</b>",
        "story": "Ada joined ACME in May. Bob stayed home.",
        "evidence_text": "She smiled. The sun shone. Nothing happened.",
    },
    {"id": "s2", "note": "Second", "story": "Cy wrote to Dee.", "evidence_text": "All was calm. Then rain."},
]


def test_shortcuts_spans_sentences_conditions_and_the_next_item(live_server, page):
    project = project_create(name="Browser task file", team=TeamFactory(), task_file=TASK)
    items_import(project=project, data="\n".join(json.dumps(i) for i in ITEMS).encode(), filename="items.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    page.goto(live_server.url + reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
    page.locator("form button[type=submit]").click()
    driver = TaskFilePage(page)
    driver.ready()
    assert page.locator(".markdown strong").inner_text() == "Read"
    assert "<b>carefully</b>" in page.locator(".markdown").inner_text()  # raw HTML shown as text
    assert page.locator("#q-mood kbd").all_inner_texts() == ["1", "2", "3"]

    assert page.locator("#q-why").is_hidden()
    driver.press("2")  # the mood's second option
    assert page.locator("input[name=mood][value=sad]").is_checked()
    assert page.locator("#q-why").is_visible()
    driver.fill("why", "the rain")
    page.locator("input[name=sure][value='4']").focus()
    driver.press("5")
    assert page.locator("input[name=sure][value='5']").is_checked()

    story = ITEMS[0]["story"]
    assert driver.mark_span("names", 0, 3, label="PER") == "Ada"
    start = story.index("ACME")
    assert driver.mark_span("names", start, start + 4, label="ORG") == "ACME"
    assert [(s["start"], s["end"], s["label"]) for s in driver.spans("names")] == [
        (0, 3, "PER"),
        (start, start + 4, "ORG"),
    ]
    assert page.locator("[data-span-text=names] mark").all_inner_texts() == ["Ada", "ACME"]
    driver.tick_sentences("evidence", [1, 2])
    driver.slide("score", 35)
    response = Response.objects.get(pk=page.get_attribute("input[name=response]", "value"))
    driver.save()

    response.refresh_from_db()
    assert response.answers["main"] == {
        "mood": "sad",
        "why": "the rain",
        "sure": 5,
        "names": [
            {"start": 0, "end": 3, "text": "Ada", "label": "PER"},
            {"start": start, "end": start + 4, "text": "ACME", "label": "ORG"},
        ],
        "evidence": [1, 2],
        "score": 35,
    }
    # the second item came in through annotate.js's swap: keys and conditions still work
    assert page.locator(".markdown").inner_text() == "Second"
    assert page.locator("#q-why").is_hidden()
    driver.press("3")
    assert page.locator("input[name=mood][value=calm]").is_checked() and page.locator("#q-why").is_hidden()
    driver.press("1")  # the next unanswered question with shortcuts: the Likert scale
    assert page.locator("input[name=sure][value='1']").is_checked()
    driver.tick_sentences("evidence", [1])
    # the slider left where it starts is no answer: the page says so and keeps what was given
    assert page.locator("output[data-slider-value]").is_hidden()
    driver.save()
    assert "Move the slider to your answer" in page.locator("#q-score .error").inner_text()
    assert page.locator("input[name=mood][value=calm]").is_checked()
    page.get_by_label("Keep this value as my answer").check()  # its middle value is the answer
    assert page.locator("output[data-slider-value]").inner_text() == "50"
    driver.save()
    assert page.locator("#page-form").count() == 0  # the unit is done
    done = Response.objects.filter(assignment=response.assignment).exclude(completed_at=None)
    assert sorted(r.answers["main"]["mood"] for r in done) == ["calm", "sad"]
    assert sorted(r.answers["main"]["score"] for r in done) == [35, 50]
