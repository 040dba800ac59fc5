"""Krippendorff's alpha against his own worked example and the `krippendorff` package's
reliability-data entry point; the bootstrap interval's determinism. No database."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest

from quality.stats.alpha import krippendorff_alpha
from quality.stats.labels import clean_labels, reliability_matrix

from .examples import (
    KRIPPENDORFF_2011,
    KRIPPENDORFF_2011_ALPHA,
    from_columns,
    random_labels,
)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_reproduces_krippendorffs_published_example(level):
    result = krippendorff_alpha(clean_labels(from_columns(KRIPPENDORFF_2011)), level=level, iterations=0)
    assert round(result.value, 3) == KRIPPENDORFF_2011_ALPHA[level]
    assert (result.n_items, result.n_values) == (11, 40)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", [11, 12])
def test_matches_the_krippendorff_package_on_reliability_data(level, seed):
    labels = clean_labels(random_labels(seed, values=(1, 2, 3, 4, 5), missing=0.4))
    data = reliability_matrix(labels).T.to_numpy(dtype=float)  # annotators x items, NaN missing
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(labels, level=level, iterations=0).value == pytest.approx(expected)


def test_ordinal_order_can_be_given_for_labels_that_are_words():
    words = {1: "easy", 2: "medium", 3: "hard", 4: "harder", 5: "hardest"}
    table = {who: [words.get(v) for v in values] for who, values in KRIPPENDORFF_2011.items()}
    order = ["easy", "medium", "hard", "harder", "hardest"]
    result = krippendorff_alpha(clean_labels(from_columns(table)), level="ordinal", order=order, iterations=0)
    assert round(result.value, 3) == 0.815


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate():
    labels = clean_labels(random_labels(13, items=80, missing=0.2))
    first = krippendorff_alpha(labels, level="nominal", iterations=300, seed=5)
    again = krippendorff_alpha(labels, level="nominal", iterations=300, seed=5)
    other = krippendorff_alpha(labels, level="nominal", iterations=300, seed=6)
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.low < first.value < first.high
    assert first.iterations == 300


def test_bootstrap_resamples_items_as_a_hand_made_percentile_would():
    labels = clean_labels(random_labels(14, items=30, missing=0.0))
    data = reliability_matrix(labels).T.to_numpy(dtype=float)
    draws = np.random.default_rng(3).integers(0, 30, size=(50, 30))
    values = [krippendorff.alpha(reliability_data=data[:, draw], level_of_measurement="interval") for draw in draws]
    result = krippendorff_alpha(labels, level="interval", iterations=50, seed=3)
    assert (result.low, result.high) == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])))


def test_perfect_agreement_is_one():
    labels = clean_labels(from_columns({"A": [1, 2, 3, 1], "B": [1, 2, 3, 1], "C": [1, 2, 3, None]}))
    for level in ("nominal", "ordinal", "interval"):
        result = krippendorff_alpha(labels, level=level, iterations=20)
        assert result.value == 1.0
        assert (result.low, result.high) == (1.0, 1.0)


def test_one_annotator_all_missing_and_a_single_value_give_nan_with_a_reason():
    one = krippendorff_alpha(clean_labels(from_columns({"A": [1, 2, 3]})), iterations=10)
    assert math.isnan(one.value) and one.reason == "no item has two labels"
    nothing = clean_labels(pd.DataFrame({"item": [1], "annotator": ["A"], "value": [None]}))
    assert krippendorff_alpha(nothing, iterations=10).reason == "no item has two labels"
    single = krippendorff_alpha(clean_labels(from_columns({"A": [2, 2], "B": [2, 2]})), iterations=10)
    assert math.isnan(single.value) and "single value" in single.reason


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="nominal, ordinal, interval"):
        krippendorff_alpha(clean_labels(from_columns({"A": [1], "B": [1]})), level="ratio")
