"""A Hub dataset folder (`export --dataset hub`): typed Parquet per config and split, and a
dataset card whose YAML the Hub (and `datasets`) reads; each folder is loaded with `datasets`
offline, as a reader of the published dataset would load it."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from ruamel.yaml import YAML

from annotation.kinds import kind_of
from annotation.models import Assignment, Project, Response
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.models import ResponseDecision
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

pytestmark = pytest.mark.django_db

READING = data_file("task_files", "before_reading.yaml").read_text(encoding="utf-8")
HEADER_KEYS = {"configs", "license", "language", "task_categories", "size_categories", "annotations_creators"}


@pytest.fixture(autouse=True)
def offline_hub(tmp_path, monkeypatch):
    """`datasets` reads nothing from the network and keeps its cache under the test's folder."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def load(directory: Path, config: str):
    import datasets  # test-only (requirements-dev.txt); imported once HF_HOME points into tmp

    return datasets.load_dataset(str(directory), config, cache_dir=str(directory.parent / "hf-cache"))


def export_hub(project: Project, directory: Path, *args: str) -> str:
    out = io.StringIO()
    call_command(
        "export", str(project.pk), "--dataset", "hub", "-o", str(directory), *args, stdout=out, stderr=io.StringIO()
    )
    return out.getvalue()


def card(directory: Path) -> tuple[dict[str, Any], str]:
    """The card's YAML header (parsed) and its body."""
    text = (directory / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    _, header, body = text.split("---\n", 2)
    return YAML(typ="safe").load(header), body


def annotate(project: Project, answer_page: Callable[[dict, str], dict], *, annotators: int) -> None:
    """Every item by `annotators` people through an invite link, each page through its real form."""
    batch = batch_create(
        project=project, name="b1", items_per_unit=project.items.count(), assignments_per_unit=annotators
    )
    invite = invite_link_create(batch=batch)
    for _ in range(annotators):
        answer_assignment(assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch), answer_page)


def answer_assignment(assignment: Assignment, answer_page: Callable[[dict, str], dict]) -> int:
    """Every page of every item of the assignment through its real form; the items done."""
    kind = kind_of(assignment.unit.batch.project)
    responses = list(assignment.responses.select_related("item").order_by("position"))
    for response in responses:
        payload = response.item.payload
        while (slug := next_page_slug(kind, payload, response.answers)) is not None:
            page = kind.page(payload, slug, response.answers)
            form = page.form_class(answer_page(payload, slug), payload=payload, answers=response.answers)
            assert form.is_valid(), (slug, form.errors)
            save_answer(response.pk, slug, form.answer())
            response.refresh_from_db()
    return len(responses)


def kept_by_item(project: Project) -> dict[int, int]:
    kept = ResponseDecision.objects.filter(run__project=project, keep=True).values_list("response__item_id", flat=True)
    counts: dict[int, int] = {}
    for item_id in kept:
        counts[item_id] = counts.get(item_id, 0) + 1
    return counts


# --- a built-in kind ----------------------------------------------------------------------------
def test_a_built_in_kind_folder_loads_with_its_types_rows_and_card(annotated, tmp_path):
    import datasets

    project = annotated.project
    quality_run_create(project=project)
    printed = export_hub(project, tmp_path / "hub")
    kept = sum(kept_by_item(project).values())
    assert printed.splitlines() == ["items: train 20", f"annotations: train {kept}"]

    items = load(tmp_path / "hub", "items")
    assert list(items) == ["train"] and items["train"].num_rows == 20
    features = items["train"].features
    assert list(features)[0] == "item_id"
    assert features["label"] == datasets.Value("int64")
    assert features["option_0"] == datasets.Value("string")
    assert features["post_choice_majority"] == datasets.Value("int64")
    assert features["post_choice_majority_tie"] == datasets.Value("bool")
    assert features["post_choice_ds_posterior"] == datasets.Value("float64")
    # the label of the field's method with its uncertainty (issue 28), through the same items dataset
    assert features["post_choice_posterior"] == datasets.Value("float64")
    assert features["post_choice_posterior_low"] == datasets.Value("float64")
    assert features["post_choice_method"] == datasets.Value("string")
    assert set(items["train"]["post_choice_method"]) == {"majority"}

    annotations = load(tmp_path / "hub", "annotations")["train"]
    assert 0 < kept < Response.objects.filter(item__project=project).count()  # the run dropped some
    assert annotations.num_rows == kept
    assert "annotator" not in annotations.features  # the recruiting site's ids stay out
    assert annotations.features["annotator_id"] == datasets.Value("int64")
    assert annotations.features["completed"] == datasets.Value("bool")
    assert set(annotations["item_id"]) <= set(items["train"]["item_id"])

    header, body = card(tmp_path / "hub")
    assert set(header) >= HEADER_KEYS
    assert header["license"] == "other" and header["language"] == ["en"]
    assert header["annotations_creators"] == ["crowdsourced"]
    assert header["size_categories"] == ["n<1K"]
    assert header["task_categories"] == ["multiple-choice", "question-answering"]  # the kind's own
    assert header["configs"] == [
        {"config_name": "items", "default": True, "data_files": [{"split": "train", "path": "items/train.parquet"}]},
        {"config_name": "annotations", "data_files": [{"split": "train", "path": "annotations/train.parquet"}]},
    ]
    # the process: the run's rules with what each dropped (the careless annotator and their 10)
    assert "- Annotators per item: 3" in body and "- Recruited through: Invite link" in body
    assert "is not above the minimum of 40% | 1 | 0 |" in body
    assert "| their annotator was dropped (above) | 0 | 10 |" in body
    assert "| Answer after reading (`post_choice`) | nominal | 20 | 100.0 |" in body and "[1.000, 1.000]" in body
    assert "| `difficulty` | 20 |" in body  # aggregation per field
    assert "`<field>_posterior_low`" in body and "| majority | 0.925 |" in body  # with the method's posterior
    assert "hf upload YOUR-NAME/recam-pilot . . --repo-type dataset" in body


def test_splits_by_batch_and_refusals(annotated, tmp_path):
    project = annotated.project
    batch = project.batches.get()
    with pytest.raises(CommandError, match="needs a finished quality run"):
        export_hub(project, tmp_path / "none")
    quality_run_create(project=project)
    with pytest.raises(CommandError, match=f"no batch 999 in this project; its batches: {batch.pk}"):
        export_hub(project, tmp_path / "x", "--split-by", "batch", "--split", "test=999")
    with pytest.raises(CommandError, match="a split is NAME=VALUE"):
        export_hub(project, tmp_path / "x", "--split-by", "batch", "--split", "test")
    with pytest.raises(CommandError, match="-o DIR"):
        call_command("export", str(project.pk), "--dataset", "hub")

    export_hub(project, tmp_path / "hub", "--split-by", "batch", "--split", f"test={batch.pk}")
    assert {split: d.num_rows for split, d in load(tmp_path / "hub", "items").items()} == {"test": 20}
    header, body = card(tmp_path / "hub")
    assert header["configs"][0]["data_files"] == [{"split": "test", "path": "items/test.parquet"}]
    assert f"batch id → split: `{batch.pk}` → `test`" in body


# --- a task file ---------------------------------------------------------------------------------
def reading_answers(payload: dict, page: str) -> dict:
    right = payload.get("label") or payload["options"][0]
    return {
        "guess": {"first_choice": right},
        "read": {"second_choice": right, "sure": "4", "why": "the passage says so"},
        "fill": {"blank_1": payload["candidates"][0], "blank_2": payload["candidates"][2]},
    }[page]


def test_a_task_file_folder_splits_by_an_item_key(tmp_path):
    import datasets

    project = project_create(name="Before reading", team=TeamFactory(), task_file=READING, language="de")
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    annotate(project, reading_answers, annotators=3)
    quality_run_create(project=project)
    export_hub(project, tmp_path / "hub", "--split-key", "id", "--split", "test=r3", "--license", "cc-by-4.0")

    items = load(tmp_path / "hub", "items")
    assert {split: d.num_rows for split, d in items.items()} == {"train": 2, "test": 1}
    assert items["test"]["id"] == ["r3"]
    features = items["train"].features
    assert features["options"] == datasets.List(datasets.Value("string"))  # a list, not JSON text
    assert features["first_choice_majority"] == datasets.Value("string")
    assert features["sure_majority"] == datasets.Value("int64")

    by_item = kept_by_item(project)
    test_item = items["test"]["item_id"][0]
    annotations = load(tmp_path / "hub", "annotations")
    assert annotations["test"].num_rows == by_item[test_item] > 0
    assert annotations["train"].num_rows == sum(by_item.values()) - by_item[test_item]
    assert annotations["train"].features["sure"] == datasets.Value("int64")
    assert annotations["train"].features["first_choice_correct"] == datasets.Value("bool")

    header, body = card(tmp_path / "hub")
    assert set(header) >= HEADER_KEYS
    assert header["license"] == "cc-by-4.0" and header["language"] == ["de"]
    assert header["configs"][0]["data_files"] == [
        {"split": "train", "path": "items/train.parquet"},
        {"split": "test", "path": "items/test.parquet"},
    ]
    assert "- Task: Answer before you read" in body
    assert "| How sure are you? (`sure`) | ordinal | 3 |" in body


TYPES = """title: Types
item:
  id: id
  show:
    - key: text
    - key: story
      as: sentences
pages:
  - id: one
    questions:
      - {id: topics, type: multiple_choice, prompt: Topics, options: [a, b, c], max_choices: 2, label: set}
      - {id: score, type: slider, prompt: Score, min: 0, max: 10, step: 0.5, label: interval}
      - {id: names, type: spans, prompt: Names, source: text, labels: [PER, ORG], label: set}
      - {id: evidence, type: sentences, prompt: Evidence, source: story, max_choices: 2}
      - {id: note, type: short_text, prompt: Note, required: false, max_length: 10}
"""
TYPES_ITEMS = [
    {"id": "t1", "text": "Ada met Bob at ACME.", "story": "One. Two! Three?"},
    {"id": "t2", "text": "Bob left ACME.", "story": "Four. Five."},
]


def types_answers(payload: dict, page: str) -> dict:
    return {
        "topics": ["c", "a"],
        "score": "7.5",
        "score-keep": "on",
        "names": json.dumps([{"start": 0, "end": 3, "label": "PER"}]),
        "evidence": ["2", "1"],
        "note": "",
    }


def test_lists_and_spans_are_typed_columns(tmp_path):
    import datasets

    project = project_create(name="Types", team=TeamFactory(), task_file=TYPES)
    data = "\n".join(json.dumps(item) for item in TYPES_ITEMS).encode()
    items_import(project=project, data=data, filename="i.jsonl")
    annotate(project, types_answers, annotators=2)
    quality_run_create(project=project)
    export_hub(project, tmp_path / "hub")

    annotations = load(tmp_path / "hub", "annotations")["train"]
    assert annotations.num_rows == 4
    features = annotations.features
    assert features["topics"] == datasets.List(datasets.Value("string"))
    assert features["evidence"] == datasets.List(datasets.Value("int64"))
    assert features["score"] == datasets.Value("float64")
    assert features["note"] == datasets.Value("string")  # never answered: text, not Arrow's null
    span = {
        k: datasets.Value(t) for k, t in [("start", "int64"), ("end", "int64"), ("text", "string"), ("label", "string")]
    }
    assert features["names"] == datasets.List(span)
    first = annotations[0]
    assert first["topics"] == ["a", "c"] and first["evidence"] == [1, 2]
    assert [(s["text"], s["label"]) for s in first["names"]] == [("Ada", "PER")]
    header, _ = card(tmp_path / "hub")
    assert header["task_categories"] == ["text-classification"]
