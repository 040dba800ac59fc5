"""`manage.py check_span_offsets`: spans saved by pages that counted UTF-16 units of the shown text
(before code points) are found, and repaired where only the old reading can be a page's."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from annotation.kinds.spans import from_browser_offsets
from annotation.models import Response
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.span_offsets import AMBIGUOUS, FINE, REPAIRABLE, verdict
from tests.factories import TeamFactory
from tests.quality.test_hub_folder import annotate

pytestmark = pytest.mark.django_db

TASK = """title: Spans
item:
  id: id
  show: [{key: text}]
pages:
  - id: p
    questions:
      - {id: errors, type: spans, prompt: Mark, source: text, labels: [X], required: false}
"""
EMOJI = "Great 🙂 product, terrible delivery."
CRLF = "First line.\r\nSecond line has an eror."


def old_page(text: str, word: str) -> dict:
    """What the old page stored for a word: its UTF-16 offsets in the shown text, sliced as code points."""
    shown = text.replace("\r\n", "\n")
    start = len(shown[: shown.index(word)].encode("utf-16-le")) // 2
    end = start + len(word.encode("utf-16-le")) // 2
    return {"start": start, "end": end, "text": text[start:end], "label": "X"}


def test_the_old_reading_maps_utf16_units_of_the_shown_text_to_code_points():
    for text, word in [(EMOJI, "terrible"), (CRLF, "eror"), ("𝔘𝔫𝔦 a 🙂 b end", "end")]:
        span = old_page(text, word)
        start, end = from_browser_offsets(text, span["start"], span["end"])
        assert text[start:end] == word


@pytest.mark.parametrize(
    ("text", "span", "expected"),
    [
        (EMOJI, old_page(EMOJI, "terrible"), REPAIRABLE),  # "errible " ends in a space: no page's
        (CRLF, old_page(CRLF, "eror"), REPAIRABLE),  # " ero" starts with one
        (EMOJI, {"start": 17, "end": 25, "text": "terrible"}, FINE),  # the old reading, "rrible d", has a space
        ("ab 🙂 cdef", {"start": 6, "end": 8, "text": "de"}, AMBIGUOUS),  # "cd" could be meant as well
        (CRLF, {"start": 32, "end": 36, "text": "eror"}, FINE),  # "ror." is no whole word
        ("plain text", {"start": 0, "end": 5, "text": "plain"}, FINE),  # both readings agree
    ],
)
def test_verdicts(text, span, expected):
    assert verdict(text, span)[0] == expected


def test_the_command_reports_then_repairs(tmp_path):
    project = project_create(name="Old spans", team=TeamFactory(), task_file=TASK)
    records = [{"id": "emoji", "text": EMOJI}, {"id": "crlf", "text": CRLF}, {"id": "plain", "text": "No emoji."}]
    items_import(project=project, data="\n".join(json.dumps(r) for r in records).encode(), filename="i.jsonl")
    annotate(project, lambda payload, page: {"errors": "[]"}, annotators=1)
    stale = {"emoji": old_page(EMOJI, "terrible"), "crlf": old_page(CRLF, "eror"), "plain": old_page("No emoji.", "No")}
    for response in Response.objects.select_related("item"):  # as the old pages stored them
        Response.objects.filter(pk=response.pk).update(answers={"p": {"errors": [stale[response.item.external_id]]}})
    out = io.StringIO()
    call_command("check_span_offsets", str(project.pk), stdout=out)
    report = out.getvalue()
    assert "repairable: item emoji" in report and "'errible '" in report and "repairable: item crlf" in report
    assert "item plain" not in report
    assert "2 span(s) repairable (run again with --repair); 0 to check by hand." in report
    assert Response.objects.get(item__external_id="emoji").answers["p"]["errors"][0]["text"] == "errible "

    call_command("check_span_offsets", str(project.pk), "--repair", stdout=io.StringIO())
    stored = {r.item.external_id: r.answers["p"]["errors"] for r in Response.objects.select_related("item")}
    assert stored["emoji"] == [{"start": 17, "end": 25, "text": "terrible", "label": "X"}]
    assert stored["crlf"] == [{"start": 32, "end": 36, "text": "eror", "label": "X"}]
    assert stored["plain"] == [stale["plain"]]
    again = io.StringIO()
    call_command("check_span_offsets", str(project.pk), stdout=again)
    assert "Every marked span reads the same" in again.getvalue()
