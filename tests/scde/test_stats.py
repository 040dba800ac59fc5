"""SCDE measures (paper §5.2) and quality rules on a case computed by hand, plus the paper's
uniform model (Table 9: DE 1.429) as a published reference.

The case uses the gold of made_up.dev.json's first two passages:
P1 gold {1:0, 2:1, 3:3, 4:4, 5:6}, distractors {2, 5}; P2 gold {1:1, 2:2, 3:4}, distractors
{0, 3}; P3 is unlabeled.

worker  passage  choices                   right  DE  seconds  difficulty
w1      P1       0 1 3 4 6                 5/5    0   600      Easy
w1      P2       1 2 4                     3/3    0   500      VeryEasy
w2      P1       0 1 2 5 6                 3/5    2   700      Hard
w2      P2       1 4 2                     1/3    0   650      Moderate   (4, 2: wrong, no distractors)
w2      P3       -                         -      -   800      Moderate
w3      P1       2 5 0 1 3                 0/5    2    30      VeryHard
w3      P2       0 3 (empty)               0/3    2    40      Hard
w4      P3       -                         -      -    45      Moderate
"""

from __future__ import annotations

import itertools
import math

import pandas as pd
import pytest

from quality.stats import scde

P1 = {"1": 0, "2": 1, "3": 3, "4": 4, "5": 6}
P2 = {"1": 1, "2": 2, "3": 4}
GOLD = {"P1": P1, "P2": P2, "P3": None}
CASE = [
    ("w1", "P1", [0, 1, 3, 4, 6], 600, "Easy"),
    ("w1", "P2", [1, 2, 4], 500, "VeryEasy"),
    ("w2", "P1", [0, 1, 2, 5, 6], 700, "Hard"),
    ("w2", "P2", [1, 4, 2], 650, "Moderate"),
    ("w2", "P3", [0, 1, 2], 800, "Moderate"),
    ("w3", "P1", [2, 5, 0, 1, 3], 30, "VeryHard"),
    ("w3", "P2", [0, 3, None], 40, "Hard"),
    ("w4", "P3", [3, 1, 0], 45, "Moderate"),
]


def frame() -> pd.DataFrame:
    rows = []
    for number, (worker, passage, picks, seconds, difficulty) in enumerate(CASE, start=1):
        gold = GOLD[passage]
        choices = {str(blank): pick for blank, pick in enumerate(picks, start=1)}
        score = scde.score_passage(gold, choices).row() if gold else {"ba": None, "pa": None, "de": None}
        rows.append(
            {
                "response_id": number,
                "annotator_id": worker,
                "item_id": passage,
                "ba": score["ba"],
                "pa": score["pa"],
                "de": score["de"],
                "seconds": seconds,
                "difficulty": difficulty,
            }
        )
    return pd.DataFrame(rows)


def test_score_passage_by_hand():
    assert scde.score_passage(P1, {1: 0, 2: 1, 3: 2, 4: 5, 5: 6}) == scde.PassageScore(5, 3, 2)
    assert scde.score_passage(P2, {"1": 1, "2": 4, "3": 2}) == scde.PassageScore(3, 1, 0)
    empty = scde.score_passage(P2, {1: 0, 2: 3, 3: None})
    assert (empty.n_correct, empty.n_distractors, empty.ba, empty.pa) == (0, 2, 0.0, False)
    full = scde.score_passage(P1, {1: 0, 2: 1, 3: 3, 4: 4, 5: 6})
    assert full.row() == {"n_blanks": 5, "n_correct": 5, "ba": 1.0, "pa": True, "de": 0}
    with pytest.raises(ValueError):
        scde.score_passage({}, {1: 0})


def test_uniform_model_matches_the_papers_table_9():
    """Every way to fill 5 blanks from 7 candidates (2 distractors), each used once, equally
    likely: the paper's uniform model. Its DE is 5 * 2/7 = 1.429 (Table 9), BA 1/7, PA 1/2520."""
    rows = [
        {
            "response_id": n,
            "annotator_id": "uniform",
            "item_id": "P1",
            "seconds": None,
            "difficulty": None,
            **scde.score_passage(P1, dict(zip(range(1, 6), picks))).row(),
        }
        for n, picks in enumerate(itertools.permutations(range(7), 5))
    ]
    summary = scde.summarize(pd.DataFrame(rows))
    assert summary.responses == 2520
    assert round(summary.de, 3) == 1.429
    assert summary.ba == pytest.approx(1 / 7)
    assert summary.pa == pytest.approx(1 / 2520)


def test_worker_metrics_by_hand():
    workers = scde.worker_metrics(frame())
    assert list(workers.index) == ["w1", "w2", "w3", "w4"]
    assert list(workers["n_responses"]) == [2, 3, 2, 1]
    assert list(workers["n_gold"]) == [2, 2, 2, 0]
    assert workers.loc["w1", ["ba", "pa", "de"]].tolist() == [1.0, 1.0, 0.0]
    assert workers.loc["w2", "ba"] == pytest.approx((3 / 5 + 1 / 3) / 2)
    assert workers.loc["w2", ["pa", "de"]].tolist() == [0.0, 1.0]
    assert workers.loc["w3", ["ba", "pa", "de"]].tolist() == [0.0, 0.0, 2.0]
    assert all(math.isnan(workers.loc["w4", c]) for c in ["ba", "pa", "de"])
    assert workers.loc["w2", "mean_seconds"] == pytest.approx((700 + 650 + 800) / 3)
    assert workers["median_seconds"].tolist() == [550.0, 700.0, 35.0, 45.0]
    assert workers.loc["w2", ["difficulty_Hard", "difficulty_Moderate", "difficulty_Easy"]].tolist() == [1, 2, 0]


def test_passage_metrics_by_hand():
    passages = scde.passage_metrics(frame())
    assert passages.loc["P1", "ba"] == pytest.approx((1 + 3 / 5 + 0) / 3)
    assert passages.loc["P1", "pa"] == pytest.approx(1 / 3)
    assert passages.loc["P1", "de"] == pytest.approx(4 / 3)
    assert passages.loc["P2", "ba"] == pytest.approx(4 / 9)
    assert passages.loc["P2", "de"] == pytest.approx(2 / 3)
    assert passages.loc["P1", "mean_seconds"] == pytest.approx((600 + 700 + 30) / 3)
    assert passages.loc["P2", "median_seconds"] == 500.0
    assert (passages.loc["P3", "n_responses"], passages.loc["P3", "n_gold"]) == (2, 0)
    assert math.isnan(passages.loc["P3", "ba"]) and passages.loc["P3", "mean_seconds"] == 422.5
    assert passages.loc["P3", "difficulty_Moderate"] == 2
    assert passages.loc["P1", [f"difficulty_{level}" for level in scde.DIFFICULTY_LEVELS]].tolist() == [1, 1, 0, 1, 0]


def test_overall_summary_and_difficulty_by_hand():
    summary = scde.summarize(frame())
    assert (summary.responses, summary.passages, summary.workers, summary.n_gold) == (8, 3, 4, 6)
    assert summary.ba == pytest.approx((1 + 1 + 3 / 5 + 1 / 3 + 0 + 0) / 6)
    assert summary.pa == pytest.approx(2 / 6)
    assert summary.de == pytest.approx(6 / 6)
    assert summary.mean_seconds == pytest.approx(3365 / 8)
    assert summary.median_seconds == 550.0
    assert summary.difficulty["count"].tolist() == [1, 2, 3, 1, 1]
    assert summary.difficulty["share"].tolist() == pytest.approx([1 / 8, 2 / 8, 3 / 8, 1 / 8, 1 / 8])
    assert list(summary.difficulty.index) == ["VeryHard", "Hard", "Moderate", "Easy", "VeryEasy"]


def test_difficulty_shares_ignore_missing_ratings():
    ratings = pd.DataFrame({"difficulty": ["Easy", None, "Easy", "Hard"]})
    distribution = scde.difficulty_distribution(ratings)
    assert distribution["count"].tolist() == [0, 1, 0, 2, 0]
    assert distribution.loc["Easy", "share"] == pytest.approx(2 / 3)


def test_paper_reference_row():
    reference = scde.PAPER_HUMAN
    assert (reference.ba, reference.pa, reference.de, reference.seconds_per_passage) == (0.871, 0.563, 0.375, 624.0)
    assert "Table 5" in reference.source and "Table 9" in reference.source
    assert pytest.approx(62.4) == scde.DEFAULT_MIN_SECONDS
    table = scde.comparison(scde.summarize(frame()))
    assert list(table.index) == ["This study", "Humans, Kong et al. (2020)"]
    assert table.loc["Humans, Kong et al. (2020)"].tolist() == [0.871, 0.563, 0.375, 624.0, 144]
    assert table.loc["This study", "de"] == pytest.approx(1.0)


def test_select_workers_with_the_default_rules():
    selection = scde.select_workers(frame())
    workers = selection.workers
    assert workers["keep"].to_dict() == {"w1": True, "w2": False, "w3": False, "w4": False}
    assert workers.loc["w2", "reasons"] == ["blank accuracy 46.7% on 2 passages with gold is below the minimum of 50%"]
    assert workers.loc["w3", "reasons"] == [
        "median time per passage 35 s is below the minimum of 62.4 s",
        "blank accuracy 0.0% on 2 passages with gold is below the minimum of 50%",
    ]
    assert workers.loc["w4", "reasons"] == ["median time per passage 45 s is below the minimum of 62.4 s"]
    responses = selection.responses
    assert responses["keep"].tolist() == [True, True, False, False, False, False, False, False]
    assert responses.loc[8, "reasons"] == [
        "worker dropped: median time per passage 45 s is below the minimum of 62.4 s"
    ]
    assert selection.summary == {
        "responses": 8,
        "responses_kept": 2,
        "workers": 4,
        "workers_kept": 1,
        "min_seconds": 62.4,
        "min_ba": 0.5,
        "dropped_too_fast": 2,
        "dropped_low_ba": 2,
    }


def test_thresholds_are_strict_and_unjudged_workers_stay():
    selection = scde.select_workers(frame(), min_seconds=35, min_ba=0.4)
    assert selection.workers["keep"].to_dict() == {"w1": True, "w2": True, "w3": False, "w4": True}
    assert selection.workers.loc["w3", "reasons"] == [
        "blank accuracy 0.0% on 2 passages with gold is below the minimum of 40%"
    ]
    untimed = frame().assign(seconds=None)
    assert scde.select_workers(untimed, min_ba=0.0).workers["keep"].all()


def test_an_empty_study_gives_no_figures_rather_than_errors():
    empty = frame().iloc[0:0]
    summary = scde.summarize(empty)
    assert (summary.responses, summary.ba, summary.mean_seconds) == (0, None, None)
    assert summary.difficulty["count"].sum() == 0
    assert scde.select_workers(empty).summary["workers"] == 0
