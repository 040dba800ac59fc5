"""Spans in hard texts (tests/fixtures/hard_texts/: emoji, ZWJ sequences, combining marks,
right-to-left text, CRLF and lone CR, tabs, astral letters, non-breaking spaces, leading and
trailing white space) are imported, previewed, stored and exported with offsets in code points of
the stored text: in every export the span's text is the item's text at its offsets, and the word
that was marked. (The same words are marked in Chromium in tests/browser/test_span_offsets.py.)"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.urls import reverse

from annotation.models import Item, Project
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.exports import export_open
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory
from tests.security.conftest import staff_with

from .test_hub_folder import annotate, export_hub, load, offline_hub  # noqa: F401 (an autouse fixture)

pytestmark = pytest.mark.django_db

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
        prompt: Mark the word
        source: text
        labels: [{value: major, label: Major}, {value: minor, label: Minor}]
        label: set
"""
SOURCE = data_file("hard_texts", "hard_texts.jsonl").read_bytes()
HARD = {r["id"]: r for r in (json.loads(line) for line in SOURCE.decode("utf-8").splitlines())}


def marked(payload: dict[str, Any]) -> dict[str, Any]:
    start = payload["text"].index(payload["word"])
    return {"start": start, "end": start + len(payload["word"]), "text": payload["word"]}


def answers(payload: dict[str, Any], page: str) -> dict[str, Any]:
    """What the page sends: the word's code-point offsets, its text, a label."""
    return {"errors": json.dumps([{**marked(payload), "label": "major"}])}


@pytest.fixture
def project() -> Project:
    project = project_create(name="Hard texts", team=TeamFactory(), task_file=TASK)
    report = items_import(project=project, data=SOURCE, filename="hard_texts.jsonl")
    assert report.created == len(HARD)
    annotate(project, answers, annotators=2)
    quality_run_create(project=project)
    return project


def rows(project: Project, dataset: str, fmt: str) -> list[dict[str, Any]]:
    body = b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks).decode("utf-8")
    if fmt == "jsonl":
        return [json.loads(line) for line in body.splitlines()]
    return list(csv.DictReader(io.StringIO(body, newline="")))


def test_import_keeps_every_character(project):
    stored = {i.external_id: i.payload["text"] for i in Item.objects.filter(project=project)}
    assert stored == {key: record["text"] for key, record in HARD.items()}


def test_the_page_and_the_preview_carry_the_exact_text(project, client):
    client.force_login(staff_with("view_project", teams=[project.team]))
    html = client.get(reverse("surveys:preview", args=[project.pk])).content.decode()
    first = next(iter(HARD.values()))
    carried = html.split("data-source='", 1)[1].split("'", 1)[0]
    assert json.loads(carried.replace("&#34;", '"').replace("&amp;", "&")) == first["text"]


@pytest.mark.parametrize("dataset", ["raw", "clean"])
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_raw_and_clean_exports_hold_the_marked_words(project, dataset, fmt):
    found = rows(project, dataset, fmt)
    assert len(found) == 2 * len(HARD)
    for row in found:
        spans = row["errors"] if fmt == "jsonl" else json.loads(row["errors"])
        record = HARD[row["external_id"]]
        assert spans == [{**marked(record), "label": "major"}], record["id"]


def test_label_studio_export_holds_code_point_offsets(project):
    """Label Studio counts its Text offsets in code points too (its frontend converts)."""
    tasks = json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt=None).chunks))
    assert len(tasks) == len(HARD)
    for task in tasks:
        text = task["data"]["text"]
        for annotation in task["annotations"]:
            (result,) = annotation["result"]
            value = result["value"]
            assert text[value["start"] : value["end"]] == value["text"] == task["data"]["word"]


def test_hub_folder_holds_the_marked_words(project, tmp_path):
    export_hub(project, tmp_path / "hub")
    annotations = load(tmp_path / "hub", "annotations")["train"]
    assert annotations.num_rows == 2 * len(HARD)
    spans = [row["errors"] for row in annotations]
    assert all(len(marks) == 1 and marks[0]["label"] == "major" for marks in spans)
    expected = sorted(2 * [(marked(r)["start"], marked(r)["end"], r["word"]) for r in HARD.values()])
    assert sorted((m[0]["start"], m[0]["end"], m[0]["text"]) for m in spans) == expected
    items = load(tmp_path / "hub", "items")["train"]
    assert sorted(items["text"]) == sorted(record["text"] for record in HARD.values())
