"""Per-item results of an interval field: mean, median, SD, a bootstrap interval of the mean
(checked against scipy's bootstrap), and WMT's mean of per-annotator z-scores (by hand). No database."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import bootstrap

from quality.stats.scores import bootstrap_mean, interval_scores


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "annotator", "value"])


RATINGS = frame(
    [
        (1, "a", 60), (1, "b", 70), (1, "c", 95),
        (2, "a", 20), (2, "b", 50), (2, "c", 80),
        (3, "a", 40), (3, "b", 90),
    ]
)  # fmt: skip


def test_mean_median_sd_per_item():
    items = interval_scores(RATINGS, iterations=0).items
    assert items.loc[1, "mean"] == pytest.approx(75) and items.loc[1, "median"] == 70
    assert items.loc[1, "sd"] == pytest.approx(np.std([60, 70, 95], ddof=1))
    assert items.loc[3, "median"] == 65 and list(items["n"]) == [3, 3, 2]
    assert math.isnan(items.loc[1, "ci_low"])  # no bootstrap asked for


def test_z_is_the_mean_of_scores_standardised_per_annotator():
    # by hand: a scored 60, 20, 40 (mean 40, sd 20); b 70, 50, 90 (mean 70, sd 20);
    # c 95, 80 (mean 87.5, sd 10.6066)
    sd_c = math.sqrt(((95 - 87.5) ** 2 + (80 - 87.5) ** 2) / 1)
    z1 = np.mean([(60 - 40) / 20, (70 - 70) / 20, (95 - 87.5) / sd_c])
    z2 = np.mean([(20 - 40) / 20, (50 - 70) / 20, (80 - 87.5) / sd_c])
    z3 = np.mean([(40 - 40) / 20, (90 - 70) / 20])
    result = interval_scores(RATINGS, iterations=0)
    assert list(result.items["z"]) == pytest.approx([z1, z2, z3])
    assert result.annotators.loc["c", "sd"] == pytest.approx(sd_c)


def test_an_annotator_without_spread_counts_in_the_mean_but_not_in_z():
    rows = frame([(1, "a", 10), (1, "b", 50), (2, "a", 30), (2, "b", 50)])
    items = interval_scores(rows, iterations=0).items
    assert list(items["mean"]) == [30, 40]
    assert list(items["z"]) == pytest.approx([-1 / math.sqrt(2), 1 / math.sqrt(2)])  # a's only


def test_the_interval_is_scipys_percentile_bootstrap_with_the_same_seed():
    values = np.array([12.0, 35, 40, 41, 58, 60, 77, 90, 91, 99])
    expected = bootstrap(
        (values,), np.mean, n_resamples=500, method="percentile", rng=np.random.default_rng(7), axis=-1
    ).confidence_interval
    assert bootstrap_mean(values, iterations=500, seed=7, confidence=0.95) == pytest.approx(
        (expected.low, expected.high)
    )
    rows = frame([(1, f"p{i}", v) for i, v in enumerate(values)])
    items = interval_scores(rows, iterations=500, seed=7).items
    assert (items.loc[1, "ci_low"], items.loc[1, "ci_high"]) == pytest.approx((expected.low, expected.high))


def test_one_score_has_no_sd_and_no_interval():
    items = interval_scores(frame([(1, "a", 40), (2, "a", 60)]), iterations=100).items
    assert items["sd"].isna().all() and items["ci_low"].isna().all() and items["z"].notna().all()


def test_a_value_that_is_not_a_number_names_item_and_annotator():
    with pytest.raises(ValueError, match="'lots' of item 2 by annotator 'b'"):
        interval_scores(frame([(1, "a", 4), (2, "b", "lots")]))


def test_every_items_interval_is_its_own_bootstrap_whatever_the_other_items():
    rng = np.random.default_rng(3)
    rows = [(item, f"p{k}", float(rng.integers(0, 101))) for item in range(600) for k in range(2 + item % 4)]
    rows = [rows[i] for i in rng.permutation(len(rows))]  # items interleaved: each keeps its scores' order
    items = interval_scores(frame(rows), iterations=200, seed=11).items
    for item in (0, 1, 2, 3, 417, 599):
        values = np.array([v for i, _, v in rows if i == item])
        expected = bootstrap_mean(values, iterations=200, seed=11, confidence=0.95)
        assert (items.loc[item, "ci_low"], items.loc[item, "ci_high"]) == pytest.approx(expected)
