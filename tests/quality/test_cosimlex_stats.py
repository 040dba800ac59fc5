"""CoSimLex selection and statistics: a hand-computed case, a synthetic panel with honest, biased
and random annotators (the release's Table 1 and conventions: test_cosimlex_release.py). No
database."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu, spearmanr

from quality.stats import cosimlex

S = 10 / 6  # 0-6 -> 0-10


def row(rid, who, item, rating, words=("lake", "stone"), completed=True):
    pair, context = {11: ("p1", 1), 12: ("p1", 2), 21: ("p2", 1), 22: ("p2", 2)}[item]
    return {
        "response_id": rid,
        "annotator_id": who,
        "item_id": item,
        "external_id": f"e{item}",
        "completed": completed,
        "pair": pair,
        "context": context,
        "inspired_word_1": words[0],
        "inspired_word_2": words[1],
        "rating": rating,
    }


def hand_case() -> pd.DataFrame:
    """Two pairs (items 11/12 and 21/22); each annotator rates one context of a pair, so no two
    annotators share 3 items and the agreement rules judge nobody. a5 types gibberish on page 1
    (dropped); a1 once (1 of 2: kept, its response too); a6 leaves one item unfinished; a7
    finishes without a rating."""
    return pd.DataFrame(
        [
            row(1, "a1", 11, 6),
            row(2, "a1", 21, 2, words=("qwerty", "house")),
            row(3, "a2", 11, 5),
            row(4, "a2", 22, 4),
            row(5, "a3", 12, 1),
            row(6, "a3", 21, 3),
            row(7, "a4", 12, 0),
            row(8, "a4", 22, 5),
            row(9, "a5", 11, 4, words=("asdf", "x")),
            row(10, "a5", 22, 0, words=("jkl", "jkl")),
            row(11, "a6", 12, None, words=(None, None), completed=False),
            row(12, "a6", 22, 6),
            row(13, "a7", 21, math.nan),
        ]
    )


@pytest.fixture
def selection():
    return cosimlex.select_ratings(hand_case())


ENGAGEMENT_REASON = "page-1 words fail the engagement check in 2 of 2 responses (100%), above the maximum of 50%"


def test_hand_case_annotators(selection):
    a = selection.annotators
    assert list(a.columns) == list(cosimlex.ANNOTATOR_COLUMNS)
    assert a["keep"].to_dict() == {"a1": True, "a2": True, "a3": True, "a4": True, "a5": False, "a6": True, "a7": True}
    assert a.loc["a5", "reasons"] == [ENGAGEMENT_REASON]
    assert all(a.loc[w, "reasons"] == [] for w in ("a1", "a2", "a3", "a4", "a6", "a7"))
    assert a.loc["a1", "engagement_flagged_share"] == 0.5
    assert a["n_responses"].to_dict() == {"a1": 2, "a2": 2, "a3": 2, "a4": 2, "a5": 2, "a6": 2, "a7": 1}
    assert (a["calibration_shift"] == 0).all() and a["consistency_mean"].isna().all()  # no consistency set
    assert a["mean_pairwise_spearman"].isna().all() and a["loo_gain"].isna().all()


def test_hand_case_responses(selection):
    r = selection.responses
    assert sorted(r.index[r["keep"]]) == [1, 2, 3, 4, 5, 6, 7, 8, 12]
    assert r.loc[9, "reasons"] == r.loc[10, "reasons"] == [f"annotator dropped: {ENGAGEMENT_REASON}"]
    assert r.loc[11, "reasons"] == [cosimlex.REASON_INCOMPLETE]
    assert r.loc[13, "reasons"] == [cosimlex.REASON_NO_RATING]
    assert r.loc[2, "keep"] and r.loc[2, "reasons"] == []  # flagged words, kept annotator: stays
    assert r.loc[1, "rating_calibrated"] == 6 and r.loc[1, "rating_scaled"] == pytest.approx(10)
    assert r.loc[9, "rating_scaled"] == pytest.approx(4 * S)  # dropped, but its value is still shown
    assert math.isnan(r.loc[11, "rating_scaled"]) and math.isnan(r.loc[13, "rating_calibrated"])


def test_hand_case_items_and_pairs(selection):
    items = selection.items
    assert list(items.columns) == list(cosimlex.ITEM_DIAGNOSTIC_COLUMNS)
    assert items["n_annotations"].to_dict() == {11: 3, 21: 2, 22: 4, 12: 2}  # a5's 0 on 22 counts here
    assert items["n_kept"].to_dict() == {11: 2, 21: 2, 22: 3, 12: 2}
    # item 11 keeps 6 and 5 (a5's 4 is dropped): 10 and 8.33 on 0-10
    assert items.loc[11, "mean"] == pytest.approx((6 + 5) / 2 * S)
    assert items.loc[11, "stdev"] == pytest.approx(statistics.stdev([6 * S, 5 * S]))  # = S / sqrt(2)
    assert items.loc[22, "mean"] == pytest.approx(5 * S) and items.loc[22, "stdev"] == pytest.approx(S)
    p1 = items.loc[11, ["sim_context1", "sim_context2", "stdev_context1", "stdev_context2", "change", "pvalue"]]
    assert items.loc[12, p1.index].tolist() == pytest.approx(p1.tolist())  # repeated on both items
    assert p1["sim_context1"] == pytest.approx(5.5 * S) and p1["sim_context2"] == pytest.approx(0.5 * S)
    assert p1["change"] == pytest.approx(-5 * S)
    # exact Mann-Whitney, 2 against 2 all above: two-sided p = 2 / C(4, 2)
    assert p1["pvalue"] == pytest.approx(2 / 6)
    assert items.loc[21, "change"] == pytest.approx(5 * S - 2.5 * S)
    assert items.loc[21, "pvalue"] == pytest.approx(2 / 10)  # 2 against 3, all below: 2 / C(5, 2)
    expected = min(
        mannwhitneyu([2 * S, 3 * S], [4 * S, 5 * S, 6 * S], alternative=side, method="asymptotic").pvalue
        for side in ("less", "greater")
    )
    assert items.loc[22, "pvalue_release"] == pytest.approx(expected)


def test_hand_case_summary(selection):
    s = selection.summary
    assert (s["responses"], s["responses_kept"], s["annotators"], s["annotators_kept"]) == (13, 9, 7, 6)
    assert s["annotations_per_entry_before"] == pytest.approx((3 + 2 + 2 + 4) / 4)
    assert s["annotations_per_entry_after"] == pytest.approx((2 + 2 + 2 + 3) / 4)
    assert s["n_pairs"] == 2
    assert s["mean_similarity"] == pytest.approx((5.5 + 0.5 + 2.5 + 5) * S / 4)
    assert s["mean_abs_change"] == pytest.approx((5 + 2.5) * S / 2)
    assert s["mean_stdev"] == pytest.approx((3 * S / math.sqrt(2) + S) / 4)
    assert math.isnan(s["agreement_spearman"])  # nobody shares 3 items with anybody


def test_edge_cases_empty_frame_unpaired_item_and_pair_without_kept_ratings():
    columns = [
        "response_id",
        "annotator_id",
        "item_id",
        "external_id",
        "completed",
        "pair",
        "context",
        "inspired_word_1",
        "inspired_word_2",
        "rating",
    ]
    empty = cosimlex.select_ratings(pd.DataFrame(columns=columns))
    assert empty.summary["responses"] == 0 and empty.summary["n_pairs"] == 0 and len(empty.items) == 0
    frame = pd.DataFrame(
        [
            [1, "a", 1, "x", True, None, None, "sea", "boat", 3],  # an item outside any pair
            [2, "b", 2, "y", True, "p", 1, "sea", "boat", 4],  # a pair with one context rated
            [3, "b", 3, "z", False, "q", 1, None, None, None],  # a pair with nothing usable
        ],
        columns=columns,
    )
    items = cosimlex.select_ratings(frame).items
    assert items.loc[1, "mean"] == pytest.approx(3 * S) and math.isnan(items.loc[1, "sim_context1"])
    assert items.loc[2, "sim_context1"] == pytest.approx(4 * S)
    assert math.isnan(items.loc[2, "sim_context2"]) and math.isnan(items.loc[2, "pvalue"])
    assert items.loc[3, ["n_annotations", "n_kept"]].tolist() == [0, 0] and items.loc[3, ITEM_NAN].isna().all()


ITEM_NAN = ["mean", "stdev", "sim_context1", "sim_context2", "change", "pvalue", "pvalue_release"]


# --- the synthetic panel ----------------------------------------------------------------------

CONSISTENCY = [f"ctx{i}" for i in range(5)]


def synthetic_panel(seed: int = 20200) -> tuple[pd.DataFrame, np.ndarray]:
    """30 contexts (15 pairs) rated 0-6 by 12 annotators from a latent true score: 8 honest
    (truth + N(0, 0.5), rounded), 2 biased (truth + 2, clipped at 6), 2 random (uniform 0-6).
    The first 5 contexts are the consistency set; their truths sit mid-scale so bias shows."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.5, 5.5, 30)
    truth[:5] = [1.5, 2.0, 2.5, 3.0, 3.5]
    kinds = ["honest"] * 8 + ["biased"] * 2 + ["random"] * 2
    words = [("lake", "stone"), ("city", "king"), ("music", "song"), ("war", "army"), ("bread", "milk")]
    rows = []
    for a, kind in enumerate(kinds):
        for i in range(30):
            if kind == "honest":
                rating = np.clip(np.rint(truth[i] + rng.normal(0, 0.5)), 0, 6)
            elif kind == "biased":
                rating = np.clip(np.rint(truth[i] + 2), 0, 6)
            else:
                rating = rng.integers(0, 7)
            w1, w2 = words[(a + i) % 5]
            rows.append(
                {
                    "response_id": len(rows) + 1,
                    "annotator_id": f"{kind}-{a}",
                    "item_id": i,
                    "external_id": f"ctx{i}",
                    "completed": True,
                    "pair": f"p{i // 2}",
                    "context": 1 + i % 2,
                    "inspired_word_1": w1,
                    "inspired_word_2": w2,
                    "rating": int(rating),
                }
            )
    return pd.DataFrame(rows), truth


@pytest.fixture(scope="module")
def panel():
    frame, truth = synthetic_panel()
    return frame, truth, cosimlex.select_ratings(frame, consistency_items=CONSISTENCY)


def test_synthetic_biased_annotators_are_calibrated_toward_the_population_and_kept(panel):
    frame, _, result = panel
    a = result.annotators
    biased = ["biased-8", "biased-9"]
    population = a["consistency_mean"].mean()
    assert (a.loc[biased, "consistency_mean"] - population > 1).all()
    assert (a.loc[biased, "calibration_shift"] == -1).all()  # high raters: one step down
    assert (a.drop(index=biased)["calibration_shift"] == 0).all()
    assert a.loc[biased, "keep"].all()
    # every calibrated rating of theirs is one lower, except those already at 0
    r = result.responses.join(frame.set_index("response_id")[["annotator_id", "rating"]])
    mine = r[r["annotator_id"].isin(biased)]
    expected = np.where(mine["rating"] == 0, 0, mine["rating"] - 1)
    assert mine["rating_calibrated"].tolist() == expected.tolist()


def test_synthetic_random_annotators_are_excluded_for_low_agreement(panel):
    _, _, result = panel
    a = result.annotators
    honest = [f"honest-{i}" for i in range(8)]
    assert a.loc[honest, "keep"].all() and all(a.loc[w, "reasons"] == [] for w in honest)
    for who in ("random-10", "random-11"):
        assert not a.loc[who, "keep"]
        assert len(a.loc[who, "reasons"]) == 1
        assert a.loc[who, "reasons"][0].startswith("average pairwise Spearman ")
        assert "SD below the panel mean" in a.loc[who, "reasons"][0]
    averages = a["mean_pairwise_spearman"]
    cutoff = averages.mean() - averages.std(ddof=1)
    assert (averages[["random-10", "random-11"]] < cutoff).all() and (averages[honest] > cutoff).all()
    assert result.summary["annotators_kept"] == 10 and result.summary["responses_kept"] == 300


def test_synthetic_selection_improves_agreement_and_the_item_means(panel):
    frame, truth, result = panel
    kept_agreement = result.summary["agreement_spearman"]
    everyone = cosimlex.agreement_vs_rest(frame.assign(rating=frame["rating"].astype(float))).mean
    assert kept_agreement > 0.85 and kept_agreement > everyone
    kept_means = result.items["mean"].sort_index()
    raw_means = frame.groupby("item_id")["rating"].mean().sort_index() * S
    assert spearmanr(kept_means, truth).statistic > spearmanr(raw_means, truth).statistic
    assert result.summary["annotations_per_entry_before"] == 12 and result.summary["annotations_per_entry_after"] == 10


def test_synthetic_leave_one_out_flags_the_random_annotators(panel):
    frame, _, _ = panel
    result = cosimlex.select_ratings(frame, consistency_items=CONSISTENCY, leave_one_out=True)
    gains = result.annotators["loo_gain"]
    assert set(gains.nlargest(2).index) == {"random-10", "random-11"}
    assert (gains.drop(index=["random-10", "random-11"]) < 0).all()
    # ceil(10% of 12) = 2: both random annotators carry both reasons, nobody else is touched
    assert [len(r) for r in result.annotators["reasons"]] == [0] * 10 + [2, 2]
