"""Observed agreement, Cohen's and Fleiss' kappa against scikit-learn, statsmodels, nltk and
Fleiss' (1971) worked example. No database: quality.stats is pure."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from nltk.metrics.agreement import AnnotationTask
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from quality.stats.kappa import (
    cohen_kappa,
    cohen_kappa_pairs,
    fleiss_kappa,
    observed_agreement,
)
from quality.stats.labels import clean_labels, reliability_matrix

from .examples import (
    FLEISS_1971_COUNTS,
    FLEISS_1971_KAPPA,
    KRIPPENDORFF_2011,
    from_columns,
    from_counts,
    random_labels,
)


def test_fleiss_reproduces_the_1971_worked_example():
    result = fleiss_kappa(clean_labels(from_counts(FLEISS_1971_COUNTS)))
    assert round(result.value, 3) == FLEISS_1971_KAPPA
    assert (result.n_items, result.raters_per_item, result.n_excluded) == (10, 14, 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fleiss_matches_statsmodels_on_complete_data(seed):
    labels = clean_labels(random_labels(seed, missing=0.0))
    table, _ = aggregate_raters(reliability_matrix(labels).to_numpy(dtype=int))
    assert fleiss_kappa(labels).value == pytest.approx(sm_fleiss_kappa(table, method="fleiss"))


def test_fleiss_keeps_the_items_with_the_modal_count_and_says_how_many_it_left_out():
    labels = clean_labels(random_labels(7, items=60, annotators=4, missing=0.15))
    matrix = reliability_matrix(labels)
    counts = matrix.notna().sum(axis=1)
    modal = counts[counts >= 2].value_counts()
    m = max(modal[modal == modal.max()].index)
    kept = matrix[counts == m]
    rows = [row.dropna().to_numpy(dtype=int) for _, row in kept.iterrows()]
    table, _ = aggregate_raters(np.vstack(rows))
    result = fleiss_kappa(labels)
    assert result.raters_per_item == m
    assert result.n_items == len(kept)
    assert result.n_excluded == int((counts >= 2).sum() - len(kept))
    assert result.n_excluded > 0
    assert result.value == pytest.approx(sm_fleiss_kappa(table, method="fleiss"))


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_cohen_matches_scikit_learn_for_every_pair_on_their_shared_items(seed):
    labels = clean_labels(random_labels(seed, missing=0.3))
    matrix = reliability_matrix(labels)
    result = cohen_kappa_pairs(labels)
    expected = []
    for a, b in itertools.combinations(matrix.columns, 2):
        both = matrix[[a, b]].dropna()
        expected.append(cohen_kappa_score(both[a].astype(int), both[b].astype(int)))
        row = result.pairs[(result.pairs.annotator_a == a) & (result.pairs.annotator_b == b)].iloc[0]
        assert row.n_shared == len(both)
        assert row.kappa == pytest.approx(expected[-1])
    assert result.n_pairs == len(expected)
    assert result.mean == pytest.approx(np.mean(expected))


def test_cohen_on_string_labels_matches_scikit_learn():
    first = ["pos", "neg", "neu", "pos", "pos", "neg", "neu", "neu"]
    second = ["pos", "neg", "pos", "pos", "neg", "neg", "neu", "pos"]
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second))


def _exact_kappa(first: list[int], second: list[int]) -> Fraction:
    n = len(first)
    p_o = Fraction(sum(x == y for x, y in zip(first, second)), n)
    p_e = sum(Fraction(first.count(c) * second.count(c), n * n) for c in set(first) | set(second))
    return (p_o - p_e) / (1 - p_e)


def test_cohen_is_the_exact_kappa_correctly_rounded_so_the_same_on_every_machine():
    """Kappa reaches the exports byte for byte, so its last bit must not depend on how the CPU's
    BLAS kernel adds up a float dot product. 7/31 is the kappa of two annotators of the CoSimLex
    export project against the others' majority: through a float dot product it came out as
    0.2258064516129032 where OpenBLAS picks its Haswell kernel, 0.22580645161290322 with SkylakeX."""
    first, second = [0, 0, 0, 0, 1, 2], [0, 3, 3, 3, 1, 3]
    assert _exact_kappa(first, second) == Fraction(7, 31)
    assert cohen_kappa(first, second) == 7 / 31 == 0.22580645161290322
    rng = np.random.default_rng(11)
    for _ in range(300):
        n, k = int(rng.integers(2, 40)), int(rng.integers(2, 6))
        first, second = rng.integers(0, k, n).tolist(), rng.integers(0, k, n).tolist()
        if len(set(first)) == len(set(second)) == 1 and first[0] == second[0]:
            continue
        assert cohen_kappa(first, second) == float(_exact_kappa(first, second)), (first, second)


def test_observed_agreement_matches_nltk_average_pairwise_agreement_on_complete_data():
    labels = clean_labels(random_labels(8, missing=0.0))
    task = AnnotationTask(data=[(r.annotator, r.item, r.value) for r in labels.itertuples()])
    result = observed_agreement(labels)
    assert result.value == pytest.approx(task.avg_Ao())
    assert result.n_items == 40


def test_observed_agreement_by_hand_with_missing_values():
    # Krippendorff's table: 11 pairable units; per-unit agreeing pairs / pairs:
    # u1 1, u2 6/12 (three 2s, one 3), u3..u5 1, u6 0 (1 2 3 4), u7 1, u8 6/12, u9 1, u10 1,
    # u11 1; unit 12 has one value and is not pairable.
    result = observed_agreement(clean_labels(from_columns(KRIPPENDORFF_2011)))
    assert result.n_items == 11
    assert result.value == pytest.approx(9 / 11)


def test_perfect_agreement():
    labels = clean_labels(
        from_columns({"A": ["x", "y", "z", "x"], "B": ["x", "y", "z", "x"], "C": ["x", "y", "z", "x"]})
    )
    assert observed_agreement(labels).value == 1.0
    assert fleiss_kappa(labels).value == pytest.approx(1.0)
    assert cohen_kappa_pairs(labels).mean == pytest.approx(1.0)


def test_one_annotator_gives_no_coefficient_and_says_why():
    labels = clean_labels(from_columns({"A": ["x", "y", "z"]}))
    assert math.isnan(observed_agreement(labels).value)
    assert observed_agreement(labels).reason == "no item has two labels"
    assert math.isnan(cohen_kappa_pairs(labels).mean)
    assert cohen_kappa_pairs(labels).pairs.empty
    assert fleiss_kappa(labels).reason == "no item has two labels"


def test_all_missing_gives_no_coefficient():
    labels = clean_labels(pd.DataFrame({"item": [1, 2], "annotator": ["A", "B"], "value": [None, math.nan]}))
    assert labels.empty
    assert math.isnan(observed_agreement(labels).value)
    assert math.isnan(fleiss_kappa(labels).value)
    assert cohen_kappa_pairs(labels).reason == "no two annotators share an item"


def test_a_single_category_has_full_agreement_but_no_kappa():
    labels = clean_labels(from_columns({"A": ["x", "x", "x"], "B": ["x", "x", "x"]}))
    assert observed_agreement(labels).value == 1.0
    assert math.isnan(fleiss_kappa(labels).value)
    assert "single category" in fleiss_kappa(labels).reason
    assert math.isnan(cohen_kappa_pairs(labels).mean)
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"]))


def test_a_second_label_for_the_same_item_is_refused():
    frame = pd.DataFrame({"item": [1, 1], "annotator": ["A", "A"], "value": ["x", "y"]})
    with pytest.raises(ValueError, match="twice"):
        clean_labels(frame)
