"""Rating-panel statistics (SimLex-999 §3): calibration, pairwise and leave-one-out agreement,
agreement with the rest. Hand-computed cases, and scipy.stats.spearmanr as the reference.
No database: quality.stats is pure pandas."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from quality.stats import ratings


def long_frame(table: dict[str, dict[str, float]]) -> pd.DataFrame:
    """{annotator: {item: rating}} -> one row per rating."""
    rows = [
        {"annotator_id": who, "item_id": item, "rating": value}
        for who, given in table.items()
        for item, value in given.items()
    ]
    return pd.DataFrame(rows)


# Calibration case. Consistency items c1, c2; means: A 3, B 2, L 0.5, H 5.5, E 4 -> population 3.0.
# L is 2.5 below (shifted +1), H 2.5 above (shifted -1); B and E are exactly 1 away (not more): stay.
# N rated no consistency item: not judged, not shifted, not part of the population mean.
CALIBRATION = {
    "A": {"c1": 3, "c2": 3, "x": 4},
    "B": {"c1": 2, "c2": 2, "x": 2},
    "L": {"c1": 0, "c2": 1, "x": 6, "y": 2},
    "H": {"c1": 6, "c2": 5, "x": 0, "y": 3},
    "E": {"c1": 4, "c2": 4, "x": 5},
    "N": {"x": 1, "y": 1},
}


@pytest.fixture
def calibration():
    frame = long_frame(CALIBRATION)
    return frame, ratings.calibrate(frame, consistency_mask=frame["item_id"].isin(["c1", "c2"]))


def test_calibration_means_and_shift_direction(calibration):
    _, result = calibration
    a = result.annotators
    assert result.population_mean == 3.0
    assert a["consistency_mean"].to_dict() == pytest.approx(
        {"A": 3.0, "B": 2.0, "L": 0.5, "H": 5.5, "E": 4.0, "N": math.nan}, nan_ok=True
    )
    assert a["shift"].to_dict() == {"A": 0, "B": 0, "L": 1, "H": -1, "E": 0, "N": 0}
    assert a["n_consistency"].to_dict() == {"A": 2, "B": 2, "L": 2, "H": 2, "E": 2, "N": 0}


def test_calibration_moves_every_rating_one_step_but_not_past_the_ends(calibration):
    frame, result = calibration
    got = frame.assign(calibrated=result.ratings).set_index(["annotator_id", "item_id"])["calibrated"]
    # low rater L: +1 everywhere except the rating already at 6
    assert [got["L", i] for i in ("c1", "c2", "x", "y")] == [1, 2, 6, 3]
    # high rater H: -1 everywhere except the rating already at 0
    assert [got["H", i] for i in ("c1", "c2", "x", "y")] == [5, 4, 0, 2]
    for who in ("A", "B", "E", "N"):
        assert all(got[who, i] == v for i, v in CALIBRATION[who].items())
    assert result.ratings.index.equals(frame.index)


def test_calibration_threshold_is_a_parameter(calibration):
    frame, _ = calibration
    loose = ratings.calibrate(frame, consistency_mask=frame["item_id"].isin(["c1", "c2"]), threshold=0.5)
    assert loose.annotators["shift"].to_dict() == {"A": 0, "B": 1, "L": 1, "H": -1, "E": -1, "N": 0}


def test_calibration_without_consistency_items_shifts_nobody(calibration):
    frame, _ = calibration
    result = ratings.calibrate(frame, consistency_mask=np.zeros(len(frame), dtype=bool))
    assert math.isnan(result.population_mean)
    assert (result.annotators["shift"] == 0).all()
    assert result.ratings.tolist() == frame["rating"].astype(float).tolist()


# Pairwise case: P and Q share items 1-4 (P 1,2,3,4; Q 1,3,2,4: rho = 1 - 6*2/(4*15) = 0.8);
# R is constant on the items it shares (its item 8 is its own; NaN: ignored, not zero); S shares only items 5 and 6
# with P (below min_shared=3: NaN). P-Q is therefore P's only computable pair.
PAIRWISE = {
    "P": {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6},
    "Q": {1: 1, 2: 3, 3: 2, 4: 4},
    "R": {1: 3, 2: 3, 3: 3, 4: 3, 8: 5},
    "S": {5: 2, 6: 1, 7: 4},
}


def test_pairwise_spearman_hand_case():
    result = ratings.pairwise_spearman(long_frame(PAIRWISE))
    pairs = result.pairs.set_index(["annotator_a", "annotator_b"])
    assert pairs.loc[("P", "Q"), "spearman"] == pytest.approx(0.8)
    assert pairs.loc[("P", "Q"), "n_shared"] == 4
    assert math.isnan(pairs.loc[("P", "R"), "spearman"]) and pairs.loc[("P", "R"), "n_shared"] == 4
    assert math.isnan(pairs.loc[("P", "S"), "spearman"]) and pairs.loc[("P", "S"), "n_shared"] == 2
    assert pairs.loc[("Q", "S"), "n_shared"] == 0
    assert result.per_annotator["P"] == pytest.approx(0.8) and result.per_annotator["Q"] == pytest.approx(0.8)
    assert math.isnan(result.per_annotator["R"]) and math.isnan(result.per_annotator["S"])
    assert result.mean == pytest.approx(0.8)
    # with min_shared=2, P-S counts: items 5, 6 -> P 5,6 vs S 2,1 -> rho = -1
    loose = ratings.pairwise_spearman(long_frame(PAIRWISE), min_shared=2).pairs
    assert loose.set_index(["annotator_a", "annotator_b"]).loc[("P", "S"), "spearman"] == pytest.approx(-1.0)


def random_panel(seed: int = 7, n_items: int = 25, n_annotators: int = 8, missing: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 6, n_items)
    rows = []
    for a in range(n_annotators):
        for i in range(n_items):
            if rng.random() < missing:
                continue
            rating = int(np.clip(np.rint(truth[i] + rng.normal(0, 1.5)), 0, 6))
            rows.append({"annotator_id": f"a{a}", "item_id": i, "rating": rating})
    return pd.DataFrame(rows)


def test_pairwise_spearman_matches_scipy_on_shared_items():
    frame = random_panel()
    result = ratings.pairwise_spearman(frame)
    wide = frame.pivot(index="item_id", columns="annotator_id", values="rating")
    checked = 0
    for row in result.pairs.itertuples():
        shared = wide[[row.annotator_a, row.annotator_b]].dropna()
        assert row.n_shared == len(shared)
        expected = spearmanr(shared[row.annotator_a], shared[row.annotator_b]).statistic
        assert row.spearman == pytest.approx(expected)
        checked += 1
    assert checked == 8 * 7 / 2
    for who, mean in result.per_annotator.items():
        mine = result.pairs[(result.pairs.annotator_a == who) | (result.pairs.annotator_b == who)]
        assert mean == pytest.approx(mine["spearman"].mean())
    assert result.mean == pytest.approx(result.pairs["spearman"].mean())


def test_exclude_low_agreement_hand_case():
    averages = pd.Series({"a": 0.8, "b": 0.7, "c": 0.75, "d": 0.1, "e": math.nan})
    flags = ratings.exclude_low_agreement(averages)
    known = [0.8, 0.7, 0.75, 0.1]
    cutoff = statistics.mean(known) - statistics.stdev(known)  # 0.5875 - 0.3301 = 0.2574
    assert flags.threshold == pytest.approx(cutoff)
    assert flags.flagged.to_dict() == {"a": False, "b": False, "c": False, "d": True, "e": False}
    assert flags.reasons["d"] == (
        "average pairwise Spearman 0.10 is more than 1 SD below the panel mean 0.59 (cutoff 0.26)"
    )
    assert flags.reasons["a"] is None and flags.reasons["e"] is None
    # two SDs: nobody is that far below
    assert not ratings.exclude_low_agreement(averages, sd=2).flagged.any()


def test_leave_one_out_gain_is_agreement_without_minus_with():
    frame = random_panel(seed=3, n_annotators=10, missing=0.0)
    # annotator a9 rates against the grain: reversed scale
    frame.loc[frame.annotator_id == "a9", "rating"] = 6 - frame.loc[frame.annotator_id == "a9", "rating"]
    flags = ratings.leave_one_out(frame, share=0.1)
    everyone = ratings.pairwise_spearman(frame).mean
    for who in ("a0", "a9"):
        without = ratings.pairwise_spearman(frame[frame.annotator_id != who]).mean
        assert flags.values[who] == pytest.approx(without - everyone)
    assert flags.values.idxmax() == "a9" and flags.values["a9"] > 0
    # ceil(10% of 10) = 1 annotator, and only a9
    assert flags.flagged[flags.flagged].index.tolist() == ["a9"]
    assert flags.reasons["a9"].startswith("leaving this annotator out raises mean pairwise Spearman by ")
    assert flags.threshold == pytest.approx(flags.values["a9"])
    # nobody is flagged when no removal raises agreement
    honest = random_panel(seed=3, n_annotators=3, missing=0.0)
    honest_flags = ratings.leave_one_out(honest, share=1.0)
    assert honest_flags.flagged.sum() == (honest_flags.values > 0).sum()


def test_agreement_vs_rest_hand_case():
    # a: 1,2,3,4; mean of b and c: 1.5,1.5,4,3 -> rank correlation 3.5/sqrt(22.5)
    table = {"a": {1: 1, 2: 2, 3: 3, 4: 4, 9: 5}, "b": {1: 2, 2: 1, 3: 4, 4: 3}, "c": {1: 1, 2: 2, 3: 4, 4: 3}}
    result = ratings.agreement_vs_rest(long_frame(table))
    assert result.per_annotator["a"] == pytest.approx(3.5 / math.sqrt(22.5))  # item 9: nobody else rated it
    # b against mean(a, c) = 1, 2, 3.5, 3.5
    assert result.per_annotator["b"] == pytest.approx(spearmanr([2, 1, 4, 3], [1, 2, 3.5, 3.5]).statistic)
    assert result.mean == pytest.approx(result.per_annotator.mean())


def test_agreement_vs_rest_matches_scipy_on_a_random_panel():
    frame = random_panel(seed=11)
    result = ratings.agreement_vs_rest(frame)
    wide = frame.pivot(index="item_id", columns="annotator_id", values="rating")
    for who in wide.columns:
        rest = wide.drop(columns=who).mean(axis=1)
        usable = wide[who].notna() & rest.notna()
        assert result.per_annotator[who] == pytest.approx(spearmanr(wide[who][usable], rest[usable]).statistic)


def test_duplicate_ratings_of_one_item_by_one_annotator_are_averaged():
    frame = long_frame(PAIRWISE)
    doubled = pd.concat([frame, pd.DataFrame([{"annotator_id": "Q", "item_id": 2, "rating": 1}])])
    # Q's item 2 becomes (3 + 1) / 2 = 2
    expected = spearmanr([1, 2, 3, 4], [1, 2, 2, 4]).statistic
    assert ratings.pairwise_spearman(doubled).mean == pytest.approx(expected)
