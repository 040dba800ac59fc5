"""ICC(1) and ICC(1,k) of the one-way random-effects model, checked against Shrout & Fleiss'
(1979) worked example and, for an unbalanced design, scipy's one-way ANOVA. No database."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy.stats import f_oneway

from quality.stats.icc import icc_oneway

# Shrout & Fleiss (1979), Table 2: 6 targets (rows) rated by 4 judges (columns); Table 4 gives
# ICC(1,1) = .17 and ICC(1,4) = .44 (and BMS = 11.24, WMS = 6.26 in Table 3).
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]


def long(rows: list[list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [(i, j, v) for i, row in enumerate(rows) for j, v in enumerate(row) if v is not None],
        columns=["item", "annotator", "value"],
    )


def test_shrout_and_fleiss_table_4():
    result = icc_oneway(long(SHROUT_FLEISS))
    assert round(result.msb, 2) == 11.24 and round(result.msw, 2) == 6.26
    assert round(result.single, 2) == 0.17 and round(result.average, 2) == 0.44
    assert result.k0 == 4 and (result.n_items, result.n_scores) == (6, 24)


def test_unbalanced_design_matches_scipys_anova_and_k0_by_hand():
    rows = [[9, 2, 5], [6, 1], [8, 4, 6, 8], [7, 1, 2, 6, 3], [10, 5]]
    result = icc_oneway(long(rows))
    anova = f_oneway(*[pd.Series(r, dtype=float) for r in rows])
    assert result.f == pytest.approx(anova.statistic) and result.p_value == pytest.approx(anova.pvalue)
    n, sizes = 16, [3, 2, 4, 5, 2]
    k0 = (n - sum(k * k for k in sizes) / n) / 4
    assert result.k0 == pytest.approx(k0)
    assert result.single == pytest.approx((result.msb - result.msw) / (result.msb + (k0 - 1) * result.msw))


def test_items_with_one_score_drop_out_and_too_few_items_give_a_reason():
    result = icc_oneway(long([[1, 2], [3]]))
    assert math.isnan(result.single) and "two items" in result.reason
    with_single = icc_oneway(long([*SHROUT_FLEISS, [5]]))
    assert with_single.single == pytest.approx(icc_oneway(long(SHROUT_FLEISS)).single)


def test_exact_agreement_is_one():
    result = icc_oneway(long([[1, 1], [5, 5], [3, 3]]))
    assert result.single == 1.0 and result.average == 1.0
