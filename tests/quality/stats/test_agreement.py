"""The one entry point: every applicable coefficient of a field, NaN or None with a reason where
not computable. No database."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from quality.stats.agreement import field_agreement

from .examples import KRIPPENDORFF_2011, KRIPPENDORFF_2011_ALPHA, from_columns


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorffs_example_at_every_level(level):
    result = field_agreement(from_columns(KRIPPENDORFF_2011), level=level, iterations=100)
    assert round(result.alpha.value, 3) == KRIPPENDORFF_2011_ALPHA[level]
    assert result.alpha.low < result.alpha.value <= result.alpha.high
    assert (result.n_items, result.n_annotators, result.n_labels) == (12, 4, 41)
    assert result.observed.value == pytest.approx(9 / 11)
    if level == "interval":  # kappa treats values as categories: not for scores
        assert result.cohen is None and result.fleiss is None
        assert "37 and 38" in result.not_applicable["cohen"] and result.icc.n_items == 11
    else:
        assert result.cohen.n_pairs == 6
        assert result.fleiss.raters_per_item == 4
    assert list(result.per_annotator.index) == ["A", "B", "C", "D"]


def test_an_interval_field_gets_the_icc_of_its_scores():
    from quality.stats.icc import icc_oneway

    from .test_icc import SHROUT_FLEISS, long

    result = field_agreement(long(SHROUT_FLEISS), level="interval", iterations=0)
    assert result.icc == icc_oneway(long(SHROUT_FLEISS)) and round(result.icc.single, 2) == 0.17


def test_ratings_get_the_spearman_figures_too():
    result = field_agreement(from_columns(KRIPPENDORFF_2011), level="interval", iterations=0)
    matrix = pd.DataFrame(KRIPPENDORFF_2011, dtype=float)
    expected = []
    for a, b in itertools.combinations(matrix.columns, 2):
        both = matrix[[a, b]].dropna()
        expected.append(spearmanr(both[a], both[b]).statistic)
    assert result.spearman.mean == pytest.approx(np.mean(expected))
    assert "spearman_vs_rest" in result.per_annotator.columns
    assert result.per_annotator["spearman_vs_rest"].to_dict() == pytest.approx(
        result.spearman_vs_rest.per_annotator.to_dict()
    )
    assert "spearman" not in result.not_applicable


def test_nominal_fields_say_spearman_does_not_apply():
    result = field_agreement(from_columns(KRIPPENDORFF_2011), level="nominal", iterations=0)
    assert result.spearman is None
    assert "interval" in result.not_applicable["spearman"]


def test_set_fields_get_masi_alpha_and_say_why_there_is_no_kappa():
    table = {"A": [{"a"}, {"a", "b"}, {"c"}], "B": [{"a"}, {"a"}, {"c"}], "C": [{"a", "b"}, {"a", "b"}, None]}
    result = field_agreement(from_columns(table), level="set", iterations=50)
    assert result.alpha.level == "set"
    assert result.cohen is None and result.fleiss is None and result.per_annotator is None
    assert "MASI" in result.not_applicable["cohen"]
    assert result.observed.value == pytest.approx((1 / 3 + 1 / 3 + 1) / 3)


def test_one_annotator_gives_nan_with_reasons_and_no_error():
    result = field_agreement(from_columns({"A": [1, 2, 3]}), level="ordinal", iterations=10)
    assert math.isnan(result.alpha.value) and result.alpha.reason == "no item has two labels"
    assert math.isnan(result.observed.value) and result.observed.reason
    assert math.isnan(result.cohen.mean) and result.cohen.reason
    assert math.isnan(result.fleiss.value) and result.fleiss.reason
    assert math.isnan(result.per_annotator.loc["A", "kappa"])


def test_all_missing_gives_nan_with_reasons():
    frame = pd.DataFrame({"item": [1, 2], "annotator": ["A", "B"], "value": [None, None]})
    result = field_agreement(frame, level="nominal", iterations=10)
    assert result.n_labels == 0
    assert result.alpha.reason == "no item has two labels"
    assert result.per_annotator.empty


def test_a_single_category_agrees_fully_but_has_no_chance_corrected_coefficient():
    result = field_agreement(from_columns({"A": ["x", "x"], "B": ["x", "x"]}), level="nominal", iterations=10)
    assert result.observed.value == 1.0
    assert "single value" in result.alpha.reason
    assert "single category" in result.fleiss.reason


def test_perfect_agreement_is_one_everywhere():
    table = {who: [1, 2, 3, 2, 1] for who in "ABC"}
    result = field_agreement(from_columns(table), level="interval", iterations=20)
    assert result.alpha.value == 1.0 and result.icc.single == 1.0
    assert result.spearman.mean == pytest.approx(1.0)
    assert list(result.per_annotator["kappa"]) == [1.0, 1.0, 1.0]


def test_the_result_is_frozen_and_levels_are_checked():
    result = field_agreement(from_columns({"A": [1, 2], "B": [1, 2]}), level="nominal", iterations=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.level = "ordinal"
    with pytest.raises(TypeError):
        result.not_applicable["x"] = "y"
    with pytest.raises(ValueError, match="nominal, ordinal, interval, set"):
        field_agreement(from_columns({"A": [1]}), level="ratio")
