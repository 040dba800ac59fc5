"""Alpha for set-valued labels with the MASI distance: nltk's AnnotationTask, the `krippendorff`
package with MASI as a custom distance, a hand computation. No database."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from quality.stats.agreement_sets import masi, masi_alpha
from quality.stats.alpha import alpha_from_counts
from quality.stats.labels import clean_labels, value_counts, value_domain

from .examples import KRIPPENDORFF_2011, from_columns

SETS = {
    "A": [{"a"}, {"a", "b"}, {"c"}, {"b"}, {"a", "c"}, None, {"b", "c"}, set()],
    "B": [{"a"}, {"a"}, {"c"}, {"b", "c"}, {"a", "c"}, {"b"}, {"b"}, set()],
    "C": [{"a", "b"}, {"a", "b"}, None, {"b"}, {"c"}, {"b"}, {"b", "c"}, {"a"}],
}


def set_labels() -> pd.DataFrame:
    return clean_labels(from_columns(SETS), sets=True)


def test_matches_nltk_annotation_task_with_masi():
    labels = set_labels()
    triples = [(r.annotator, r.item, r.value) for r in labels.itertuples() if r.value]  # nltk cannot take empty sets
    no_empty = labels[[bool(v) for v in labels["value"]]]
    expected = AnnotationTask(data=triples, distance=masi_distance).alpha()
    assert masi_alpha(no_empty, iterations=0).value == pytest.approx(expected)


def test_matches_the_krippendorff_package_with_masi_as_its_distance():
    """The package computes alpha from its own coincidence matrices; nltk from label pairs."""
    labels = set_labels()
    domain = value_domain(labels)
    index = {value: i for i, value in enumerate(domain)}
    table = pd.DataFrame(SETS).map(lambda v: math.nan if v is None else index[frozenset(v)]).T.to_numpy(dtype=float)

    def distance(v1, v2, i1, i2, n_v, dtype=np.float64):
        return np.vectorize(lambda x, y: masi(domain[int(x)], domain[int(y)]))(v1, v2).astype(dtype)

    expected = krippendorff.alpha(
        reliability_data=table, value_domain=np.arange(len(domain)), level_of_measurement=distance
    )
    assert masi_alpha(labels, iterations=0).value == pytest.approx(expected)


def test_singleton_sets_give_krippendorffs_nominal_alpha():
    table = {who: [None if v is None else {v} for v in values] for who, values in KRIPPENDORFF_2011.items()}
    assert round(masi_alpha(clean_labels(from_columns(table), sets=True), iterations=0).value, 3) == 0.743


def test_by_hand_two_annotators_two_items():
    # Item 1: {a} vs {a,b}: MASI distance 1 - (1/2)(2/3) = 2/3. Item 2: {c} vs {c}: 0.
    # Do = (2 * 2/3) / 4 (each unit: 2 ordered pairs / (m - 1) = 1, so Do = sum over units of
    # 2 * d / n with n = 4) = 1/3. De over all 4 values {a},{a,b},{c},{c}: ordered pairs of
    # different values: {a}-{a,b} 2/3 (x2), {a}-{c} 1 (x4), {a,b}-{c} 1 (x4) -> (4/3 + 8) / 12.
    labels = clean_labels(from_columns({"A": [{"a"}, {"c"}], "B": [{"a", "b"}, {"c"}]}), sets=True)
    d_o, d_e = 1 / 3, (4 / 3 + 8) / 12
    assert masi_alpha(labels, iterations=0).value == pytest.approx(1 - d_o / d_e)


def test_bootstrap_engine_equals_nltk_on_the_full_data():
    labels = set_labels()
    domain = value_domain(labels)
    _, counts = value_counts(labels, domain)
    distances = np.array([[masi(a, b) for b in domain] for a in domain])
    rough = alpha_from_counts(
        counts,
        np.arange(len(domain)),
        lambda v1, v2, i1, i2, n_v, dtype=None: distances[i1, i2],
        level_name="set",
        iterations=0,
    )
    result = masi_alpha(labels, iterations=200, seed=1)
    assert rough.value == pytest.approx(result.value)
    assert result.low <= result.value <= result.high


def test_identical_empty_sets_agree_and_lists_equal_sets():
    assert masi(frozenset(), frozenset()) == 0.0
    labels = clean_labels(from_columns({"A": [["b", "a"], []], "B": [{"a", "b"}, set()]}), sets=True)
    assert masi_alpha(labels, iterations=0).value == 1.0


def test_one_annotator_and_one_set_give_nan_with_a_reason():
    one = masi_alpha(clean_labels(from_columns({"A": [{"a"}, {"b"}]}), sets=True), iterations=0)
    assert one.reason == "no item has two labels"
    same = masi_alpha(clean_labels(from_columns({"A": [{"a"}], "B": [{"a"}]}), sets=True), iterations=0)
    assert "single value" in same.reason
