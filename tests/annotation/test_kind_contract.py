"""Every registered task kind is checked the same way: parse -> pages -> answers -> export.

A new kind must add its sample file and a way to answer each page to KIND_SAMPLES.
"""

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from django.template.loader import get_template

from annotation.kinds import TaskKind, all_kinds, get_kind, task_file_kind
from annotation.kinds.gcrc.labels import polarity
from annotation.services.responses import next_page_slug
from tests.conftest import data_file


def recam_answers(payload: dict, page: str) -> dict[str, Any]:
    label = payload.get("label", 0)
    article = payload["article"]
    return {
        "pre": {"choice": str(label)},
        "post": {"choice": str(label)},
        "second": {"choice": "none"},
        "support_span": {"text": article[:30]},
        "relation": {"relation": "paraphrase"},
        "summary_span": {"text": article[5:45]},
        "difficulty": {"difficulty": "easy"},
    }[page]


def cosimlex_answers(payload: dict, page: str) -> dict[str, Any]:
    return {
        "inspired": {"word_1": "river", "word_2": "boat"},
        "rating": {"rating": "4"},
    }[page]


def gcrc_answers(payload: dict, page: str) -> dict[str, Any]:
    if page == "answer":
        return {"answer": "B"}
    letter = page.removeprefix("option_").upper()
    answer = (payload.get("reference") or {}).get("answer") or "B"
    wrong = polarity(payload["question"], answer).wrong["ABCD".index(letter)]
    return {
        "evidence": ["0", str(len(payload["sentences"]) - 1)],
        "skill": "DED",
        **({"wrong": "on", "error": "DTL"} if wrong else {"error": ""}),
    }


def scde_answers(payload: dict, page: str) -> dict[str, Any]:
    """The gold where the passage has one, else the first candidates in blank order."""
    gold = payload.get("gold") or {str(blank): n for n, blank in enumerate(payload["blanks"])}
    return {
        "passage": {
            **{f"blank_{blank}": str(candidate) for blank, candidate in gold.items()},
            "difficulty": "Moderate",
            "visible_ms": "61500",
        },
    }[page]


def task_file_answers(payload: dict, page: str) -> dict[str, Any]:
    return {
        "guess": {"first_choice": payload["options"][1]},
        "read": {"second_choice": payload["options"][0], "sure": "4", "why": "the passage says so"},
        "fill": {"blank_1": payload["candidates"][0], "blank_2": payload["candidates"][2]},
    }[page]


#: a kind described by a task file is held to the same contract
TASK_FILE = data_file("task_files", "before_reading.yaml").read_text(encoding="utf-8")
KIND_SAMPLES: dict[str, tuple[tuple[str, ...], Callable[[dict, str], dict]]] = {
    "task_file": (("task_files", "before_reading.jsonl"), task_file_answers),
    "recam": (("recam", "Task_1_dev.sample.jsonl"), recam_answers),
    "cosimlex": (("cosimlex", "cosimlex_en.sample.csv"), cosimlex_answers),
    "gcrc": (("gcrc", "dev_GCRCadvrobust.sample.json"), gcrc_answers),
    "scde": (("scde", "made_up.dev.json"), scde_answers),
}


def test_every_kind_has_contract_samples():
    assert {k.slug for k in all_kinds()} <= set(KIND_SAMPLES)


def contract_kind(slug: str) -> TaskKind:
    return task_file_kind(TASK_FILE) if slug == "task_file" else get_kind(slug)


@pytest.mark.parametrize("slug", [k.slug for k in all_kinds()] + ["task_file"])
def test_kind_contract(slug):
    kind = contract_kind(slug)
    path, answer_page = KIND_SAMPLES[slug]
    assert kind.title and kind.default_instructions and kind.file_format
    items = kind.parse(data_file(*path).read_text(encoding="utf-8"))
    assert items and len({i.external_id for i in items}) == len(items)
    rows = []
    for n, parsed in enumerate(items[:3]):
        answers: dict[str, Any] = {}
        pages = list(kind.pages(parsed.payload, answers))
        assert len({p.slug for p in pages}) == len(pages)
        while (slug := next_page_slug(kind, parsed.payload, answers)) is not None:
            page = kind.page(parsed.payload, slug, answers)
            get_template(page.template)  # exists and compiles
            context = kind.page_context(parsed.payload, page, answers)
            assert isinstance(context, dict)
            form = page.form_class(answer_page(parsed.payload, page.slug), payload=parsed.payload, answers=answers)
            assert form.is_valid(), (page.slug, form.errors)
            answers[page.slug] = json.loads(json.dumps(form.answer()))
        row = kind.annotation_row(parsed.payload, answers)
        assert list(row) == kind.annotation_columns()
        rows.append(
            {
                "response_id": n,
                "annotator_id": n % 2,
                "item_id": n,
                "external_id": parsed.external_id,
                "completed": True,
                **row,
            }
        )
    outcome = kind.quality(pd.DataFrame(rows), kind.settings_for({}))
    assert set(outcome.responses.index) == {r["response_id"] for r in rows}
    assert {"keep", "reasons"} <= set(outcome.responses.columns)
    exported = kind.export_item(items[0].payload, dict(outcome.items.iloc[0]))
    json.dumps(exported)
    assert kind.export_item(items[0].payload, None)
    for name, spec in kind.item_exports().items():
        assert spec.description
        rows_of_format = [spec.row(i.payload, None) for i in items]
        assert any(r is not None for r in rows_of_format), name
        json.dumps(rows_of_format)
