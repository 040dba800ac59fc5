"""Each item's label with its posterior and bootstrap interval over annotators, and each
annotator's competence with its interval (quality.stats.uncertainty).

References: scipy.stats.bootstrap's percentile interval (same resample indices from the same
seed) on one item, where the majority's posterior is the mean of "this annotator gave the
chosen label"; a plain NumPy cluster bootstrap written here on several items; the aggregators'
own posteriors and one-coin's own accuracy for the point estimates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from quality.stats import uncertainty
from quality.stats.dawid_skene import dawid_skene
from quality.stats.one_coin import one_coin_dawid_skene
from quality.stats.simulated_crowd import CrowdMix, simulate_crowd
from quality.stats.uncertainty import METHODS, auto_method, label_uncertainty, percentile_interval

ALL_GOOD = CrowdMix(good=1, mediocre=0, spammer=0, biased=0)


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "annotator", "value"])


def one_item(values: str) -> pd.DataFrame:
    return frame([(1, f"a{n:02d}", value) for n, value in enumerate(values)])


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_one_items_interval_is_scipys_percentile_bootstrap(seed: int, confidence: float) -> None:
    labels = one_item("aababaaacaabaa")  # "a" chosen, 10 of 14
    result = label_uncertainty(labels, method="majority", rounds=300, seed=seed, confidence=confidence)
    gave_a = (labels.sort_values("annotator")["value"] == "a").to_numpy(dtype=float)
    reference = stats.bootstrap(
        (gave_a,),
        np.mean,
        n_resamples=300,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    row = result.items.loc[1]
    assert row["label"] == "a" and row["posterior"] == pytest.approx(10 / 14)
    assert (row["low"], row["high"]) == pytest.approx((reference.low, reference.high), abs=1e-12)
    assert row["n_rounds"] == 300


def test_percentile_interval_is_numpys_linear_quantiles_without_nan() -> None:
    values = np.array([0.2, np.nan, 0.9, 0.5, 0.1, np.nan, 0.7])
    assert percentile_interval(values, 0.9) == pytest.approx(
        tuple(np.quantile([0.2, 0.9, 0.5, 0.1, 0.7], [0.05, 0.95]))
    )
    assert all(math.isnan(v) for v in percentile_interval(np.array([np.nan]), 0.95))


def test_majority_intervals_on_several_items_match_a_plain_cluster_bootstrap() -> None:
    crowd = simulate_crowd(seed=3, n_items=30, n_annotators=8, labels_per_item=4)
    labels, rounds = crowd.labels, 120
    result = label_uncertainty(labels, method="majority", rounds=rounds, seed=5)
    annotators = sorted(labels["annotator"].unique())
    draws = np.random.default_rng(5).integers(0, len(annotators), (rounds, len(annotators)))
    for item, row in result.items.head(10).iterrows():
        mine = labels[labels["item"] == item].set_index("annotator")["value"]
        chosen = row["label"] if row["label"] is not None else sorted(mine)[0]
        shares = []
        for drawn in draws:
            given = [mine[annotators[a]] for a in drawn if annotators[a] in mine.index]
            if given:
                shares.append(sum(value == chosen for value in given) / len(given))
        low, high = np.quantile(shares, [0.025, 0.975])
        assert (row["low"], row["high"], row["n_rounds"]) == pytest.approx((low, high, len(shares)))


def test_point_estimates_are_the_aggregators_own() -> None:
    labels = simulate_crowd(seed=11, n_items=80, n_annotators=12).labels
    coin = one_coin_dawid_skene(labels)
    result = label_uncertainty(labels, method="one_coin", rounds=0)
    pd.testing.assert_series_equal(result.items["posterior"], coin.labels["posterior"], check_names=False)
    assert (result.items["label"] == coin.labels["label"]).all()
    # one-coin's accuracy is the mean posterior of an annotator's labels: the competence here
    pd.testing.assert_series_equal(result.annotators["competence"], coin.accuracy, check_names=False, atol=1e-9)
    ds = label_uncertainty(labels, method="dawid_skene", rounds=0)
    pd.testing.assert_series_equal(ds.items["posterior"], dawid_skene(labels).labels["posterior"], check_names=False)
    assert result.items["low"].isna().all() and result.annotators["high"].isna().all()


def test_a_tie_has_no_label_but_its_posterior() -> None:
    labels = frame([(1, "x", "a"), (1, "y", "b"), (2, "x", "a"), (2, "y", "a"), (2, "z", "a")])
    result = label_uncertainty(labels, method="majority", rounds=50)
    assert result.items.loc[1, "label"] is None and bool(result.items.loc[1, "tie"])
    assert result.items.loc[1, "posterior"] == pytest.approx(0.5)
    assert result.items.loc[2, "label"] == "a" and result.items.loc[2, "n_labels"] == 3


@pytest.mark.parametrize("method", ["majority", "one_coin", "mace"])
def test_unanimous_items_intervals_hold_their_posterior(method: str) -> None:
    labels = simulate_crowd(seed=4, n_items=60, n_annotators=12, labels_per_item=4, mix=ALL_GOOD).labels
    result = label_uncertainty(labels, method=method, rounds=100, seed=1)
    unanimous = labels.groupby("item")["value"].nunique() == 1
    items = result.items[unanimous.reindex(result.items.index)]
    assert len(items) > 10
    assert (items["low"] <= items["posterior"] + 1e-9).all()
    assert (items["posterior"] <= items["high"] + 1e-9).all()
    if method == "majority":  # every resample that has the item has only its one label
        assert (items["low"] == 1).all() and (items["high"] == 1).all()


@pytest.mark.parametrize("method", ["majority", "one_coin"])
def test_intervals_narrow_as_annotators_per_item_grow(method: str) -> None:
    widths = []
    for per_item in (3, 5, 9):
        labels = simulate_crowd(seed=2, n_items=100, n_annotators=20, labels_per_item=per_item, mix=ALL_GOOD).labels
        result = label_uncertainty(labels, method=method, rounds=100)
        widths.append(float((result.items["high"] - result.items["low"]).mean()))
    assert widths[0] > widths[1] > widths[2]


def test_competence_intervals_tell_good_annotators_from_spammers() -> None:
    crowd = simulate_crowd(seed=8, n_items=300, n_annotators=20, labels_per_item=5)
    result = label_uncertainty(crowd.labels, method="one_coin", rounds=60)
    table = result.annotators.join(crowd.annotators["kind"])
    assert (table["low"] <= table["competence"] + 1e-9).all() and (table["competence"] <= table["high"] + 1e-9).all()
    means = table.groupby("kind")["competence"].mean()
    assert means["good"] > means["mediocre"] > means["spammer"]
    assert table["n_labels"].sum() == len(crowd.labels)
    assert (table["n_rounds"] > 0).all() and (table["n_rounds"] < 60).all()  # not drawn in some rounds


@pytest.mark.parametrize("method", METHODS)
def test_every_method_is_seeded_and_reproducible(method: str) -> None:
    labels = simulate_crowd(seed=5, n_items=15, n_annotators=5).labels
    first = label_uncertainty(labels, method=method, rounds=8, seed=3)
    again = label_uncertainty(labels, method=method, rounds=8, seed=3)
    pd.testing.assert_frame_equal(first.items, again.items)
    pd.testing.assert_frame_equal(first.annotators, again.annotators)
    assert first.items["posterior"].between(0, 1).all() and first.method == method


def test_one_label_everywhere_is_certain_for_every_method() -> None:
    labels = frame([(i, w, "a") for i in range(4) for w in ("x", "y", "z")])
    for method in METHODS:
        result = label_uncertainty(labels, method=method, rounds=5)
        assert (result.items["label"] == "a").all() and result.items["posterior"].to_numpy() == pytest.approx(1)


def test_refuses_unknown_methods_and_negative_rounds() -> None:
    labels = one_item("ab")
    with pytest.raises(ValueError, match="unknown aggregation method 'vote'; known: majority, dawid_skene"):
        label_uncertainty(labels, method="vote")
    with pytest.raises(ValueError, match="negative"):
        label_uncertainty(labels, method="majority", rounds=-1)


def test_auto_is_one_coin_once_three_annotators_overlap() -> None:
    assert auto_method(frame([(1, "x", "a"), (1, "y", "b"), (2, "x", "a"), (2, "y", "a")])) == "majority"
    assert auto_method(frame([(1, "x", "a"), (2, "y", "b"), (3, "z", "a")])) == "majority"  # no item twice
    assert auto_method(frame([(1, "x", "a"), (1, "y", "b"), (2, "z", "a")])) == "one_coin"
    assert auto_method(frame([])) == "majority"


def test_majoritys_vectorised_resamples_are_the_refitting_loops() -> None:
    labels = simulate_crowd(seed=9, n_items=40, n_annotators=9, labels_per_item=3).labels
    chosen = label_uncertainty(labels, method="majority", rounds=0).items["posterior"]  # only its index
    first = uncertainty._chosen(uncertainty.FITS["majority"](labels))["first"]
    assert first.index.equals(chosen.index)
    fast = uncertainty._bootstrap_votes(labels, first, 50, 4)
    slow = uncertainty._bootstrap(labels, first, 50, 4, fit=uncertainty.FITS["majority"])
    np.testing.assert_allclose(fast[0], slow[0], equal_nan=True)
    np.testing.assert_allclose(fast[1], slow[1], equal_nan=True)
    assert np.isnan(fast[1]).any() and not np.isnan(fast[1]).all()
