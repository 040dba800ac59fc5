"""The SCDE task kind without a database: the page's form, the columns, the quality outcome and
the released-format rows, on made_up.dev.json and cases computed by hand.

P1 (madeup-dev-1) gold {1:0, 2:1, 3:3, 4:4, 5:6}, distractors {2, 5};
P2 (madeup-dev-2) gold {1:1, 2:2, 3:4}, distractors {0, 3}.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from annotation.kinds import get_kind
from annotation.kinds.scde.page import PassageForm
from annotation.kinds.scde.results import passage_seconds
from tests.conftest import data_file

KIND = get_kind("scde")
ITEMS = KIND.parse(data_file("scde", "made_up.dev.json").read_text(encoding="utf-8"))
P1, P2 = ITEMS[0].payload, ITEMS[1].payload
UNLABELED = KIND.parse(data_file("scde", "made_up.test.json").read_text(encoding="utf-8"))[0].payload


def post(picks: list, difficulty: str = "Hard", visible_ms: str | None = "90500") -> dict:
    data = {f"blank_{n}": "" if pick is None else str(pick) for n, pick in enumerate(picks, start=1)}
    data["difficulty"] = difficulty
    if visible_ms is not None:
        data["visible_ms"] = visible_ms
    return data


def form(payload: dict, data: dict) -> PassageForm:
    return PassageForm(data, payload=payload, answers={})


def answered(payload: dict, picks: list, **kwargs) -> dict:
    f = form(payload, post(picks, **kwargs))
    assert f.is_valid(), f.errors
    return {"passage": json.loads(json.dumps(f.answer()))}


def test_a_full_answer_is_stored_with_string_keys_and_visible_seconds():
    f = form(P1, post([0, 1, 2, 5, 6]))
    assert f.is_valid(), f.errors
    assert f.answer() == {
        "choices": {"1": 0, "2": 1, "3": 2, "4": 5, "5": 6},
        "difficulty": "Hard",
        "visible_seconds": 90.5,
    }
    silent = form(P1, post([0, 1, 2, 5, 6], visible_ms=None))
    assert silent.is_valid() and silent.answer()["visible_seconds"] is None


def test_the_server_refuses_a_candidate_used_twice_naming_its_letter():
    f = form(P1, post([0, 1, 0, 5, 6]))
    assert not f.is_valid()
    assert f.errors["blank_3"] == ["Sentence A is already used for blank 1; each sentence can fill only one blank."]
    assert set(f.errors) == {"blank_3"}


def test_the_server_refuses_an_empty_blank_and_a_missing_difficulty():
    f = form(P2, post([1, None, 4], difficulty=""))
    assert not f.is_valid()
    assert f.errors["blank_2"] == ["Choose a sentence for blank 2."]
    assert "difficulty" in f.errors


@pytest.mark.parametrize(
    "bad",
    [
        {"blank_1": "9"},
        {"blank_1": "x"},
        {"visible_ms": "-5"},
        {"visible_ms": "abc"},
        {"visible_ms": str(8 * 24 * 3600 * 1000)},
        {"difficulty": "Trivial"},
    ],
)
def test_values_the_page_cannot_send_are_refused(bad):
    f = form(P2, {**post([1, 2, 4]), **bad})
    assert not f.is_valid()
    assert set(f.errors) == {next(iter(bad))}  # one message, on the field at fault


def test_page_context_numbers_the_blanks_in_place_and_letters_the_candidates():
    page = KIND.pages(P2, {})[0]
    context = KIND.page_context(P2, page, {})
    assert [p.get("blank") for p in context["pieces"]] == [1, None, None, 2, None, 3]
    assert [letter for letter, _ in context["candidates"]] == ["A", "B", "C", "D", "E"]
    assert "gold" not in json.dumps(context, default=str)


def test_columns_against_hand_computed_scores():
    # P1 answered 0 1 2 5 6: blanks 1, 2, 5 right (3/5), candidates 2 and 5 are distractors
    row = KIND.annotation_row(P1, answered(P1, [0, 1, 2, 5, 6]))
    assert row == {
        "ba": 0.6,
        "pa": False,
        "de": 2,
        "visible_seconds": 90.5,
        "difficulty": "Hard",
        "answer_sequence": "[[1, 0], [2, 1], [3, 2], [4, 5], [5, 6]]",
    }
    # P2 answered with its gold: all right, no distractor
    row = KIND.annotation_row(P2, answered(P2, [1, 2, 4], difficulty="VeryEasy"))
    assert (row["ba"], row["pa"], row["de"]) == (1.0, True, 0)
    # P2 answered 0 3 1: nothing right, two distractors (0 and 3)
    row = KIND.annotation_row(P2, answered(P2, [0, 3, 1]))
    assert (row["ba"], row["pa"], row["de"]) == (0.0, False, 2)
    # an unlabeled passage has no scores; an unanswered response has nothing
    row = KIND.annotation_row(UNLABELED, answered(UNLABELED, [0, 1, 3]))
    assert (row["ba"], row["pa"], row["de"], row["answer_sequence"]) == (None, None, None, "[[1, 0], [2, 1], [3, 3]]")
    assert set(KIND.annotation_row(P1, {}).values()) == {None}


def test_passage_seconds_prefers_the_visible_time_capped_by_the_servers():
    frame = pd.DataFrame(
        {"seconds": [100.0, 100.0, 80.0, None, None], "visible_seconds": [60.0, 130.0, None, 40.0, None]}
    )
    got = passage_seconds(frame).tolist()
    assert got[:4] == [60.0, 100.0, 80.0, 40.0] and math.isnan(got[4])


CASE = [  # response, worker, passage, picks, server s, visible s, difficulty, completed
    (1, "w1", P1, [0, 1, 3, 4, 6], 700.0, 600.0, "Easy", True),
    (2, "w1", P2, [1, 2, 4], 500.0, None, "VeryEasy", True),
    (3, "w2", P1, [0, 1, 2, 5, 6], 700.0, 650.0, "Hard", True),
    (4, "w2", P2, [1, 2, 3], 650.0, 640.0, "Moderate", True),
    (5, "w3", P1, [2, 5, 0, 1, 3], 30.0, 25.0, "VeryHard", True),  # too fast and wrong
    (6, "w4", P2, [1, 2, 4], 400.0, 45.0, "Easy", True),  # visible only 45 s: too fast
    (7, "w1", UNLABELED, None, None, None, None, False),  # never submitted
]


def case_frame() -> pd.DataFrame:
    rows = []
    for rid, worker, payload, picks, server, visible, difficulty, completed in CASE:
        answers = (
            answered(
                payload, picks, difficulty=difficulty, visible_ms=None if visible is None else str(int(visible * 1000))
            )
            if picks
            else {}
        )
        rows.append(
            {
                "response_id": rid,
                "item_id": payload["eid"],
                "annotator_id": worker,
                "annotator": worker.upper(),
                "completed": completed,
                "seconds": server,
                **KIND.annotation_row(payload, answers),
            }
        )
    return pd.DataFrame(rows)


def test_quality_drops_fast_and_inaccurate_workers_and_unsubmitted_passages_with_reasons():
    outcome = KIND.quality(case_frame(), KIND.settings_for({}))
    kept = outcome.responses["keep"].to_dict()
    assert kept == {1: True, 2: True, 3: True, 4: True, 5: False, 6: False, 7: False}
    reasons = outcome.responses["reasons"].to_dict()
    assert reasons[5] == [
        "worker dropped: median time per passage 25 s is below the minimum of 62.4 s",
        "worker dropped: blank accuracy 0.0% on 1 passage with gold is below the minimum of 50%",
    ]
    assert reasons[6] == ["worker dropped: median time per passage 45 s is below the minimum of 62.4 s"]
    assert reasons[7] == ["incomplete: the passage was never submitted"]
    assert outcome.responses["passage_seconds"].tolist()[:6] == [600.0, 500.0, 650.0, 640.0, 25.0, 45.0]
    workers = outcome.annotators
    # w2: P1 3/5 with 2 distractors, P2 2/3 with distractor 3 -> BA (0.6 + 2/3) / 2, PA 0, DE 1.5
    assert workers.loc["w2", "ba"] == pytest.approx((0.6 + 2 / 3) / 2)
    assert (workers.loc["w2", "pa"], workers.loc["w2", "de"]) == (0.0, 1.5)
    assert workers["keep"].to_dict() == {"w1": True, "w2": True, "w3": False, "w4": False}


def test_summary_sets_the_kept_study_beside_the_papers_humans():
    summary = KIND.quality(case_frame(), KIND.settings_for({})).summary
    # kept: responses 1-4; BA (1 + 1 + 0.6 + 2/3) / 4, PA 2/4, DE (0 + 0 + 2 + 1) / 4
    assert summary["ba"] == pytest.approx((2 + 0.6 + 2 / 3) / 4)
    assert (summary["pa"], summary["de"], summary["passages_answered"]) == (0.5, 0.75, 2)
    assert summary["mean_seconds_per_passage"] == pytest.approx((600 + 500 + 650 + 640) / 4)
    assert (summary["paper_human_ba"], summary["paper_human_pa"], summary["paper_human_de"]) == (0.871, 0.563, 0.375)
    assert summary["paper_human_seconds_per_passage"] == 624.0
    assert summary["share_Easy"] == 0.25 and summary["share_Moderate_paper_human"] == 0.382
    assert summary["share_Hard_paper_human"] is None and "Kong" in summary["reference"]
    assert (summary["min_seconds"], summary["min_ba"], summary["workers_kept"]) == (62.4, 0.5, 2)


def test_items_and_exports_in_the_released_format():
    outcome = KIND.quality(case_frame(), KIND.settings_for({}))
    items = outcome.items
    p1 = items.loc["madeup-dev-1"]
    # P1 kept: w1 5/5, w2 3/5 -> BA 0.8, PA 0.5, DE 1; 3 responses, 2 kept
    assert (p1["n_responses"], p1["n_kept"], p1["ba"], p1["pa"], p1["de"]) == (3, 2, 0.8, 0.5, 1.0)
    assert p1["worker_answers"] == [
        {"annotator": "W1", "answer_sequence": [[1, 0], [2, 1], [3, 3], [4, 4], [5, 6]]},
        {"annotator": "W2", "answer_sequence": [[1, 0], [2, 1], [3, 2], [4, 5], [5, 6]]},
    ]
    diagnostics = json.loads(json.dumps({k: (v.item() if isinstance(v, np.generic) else v) for k, v in p1.items()}))
    exported = KIND.export_item(P1, diagnostics)
    released = json.loads(data_file("scde", "made_up.dev.json").read_text(encoding="utf-8"))[0]
    assert {k: exported[k] for k in released} == released
    assert (exported["human_ba"], exported["human_n_kept"]) == (0.8, 2)
    workers = KIND.item_exports()["worker_answers"].row(P1, diagnostics)
    assert "answer_sequence" not in workers and workers["eid"] == "madeup-dev-1"
    assert workers["worker_answer_sequences"] == p1["worker_answers"]
    assert KIND.item_exports()["worker_answers"].row(P1, None)["worker_answer_sequences"] == []


def test_item_text_shows_the_passage_with_its_markers_and_the_lettered_candidates():
    text = KIND.item_text_row(P2)
    assert text["passage_text"].startswith("<1> The class planted beans")
    assert text["candidates_text"].splitlines()[1] == "B. Our teacher wanted us to learn how plants use light."
