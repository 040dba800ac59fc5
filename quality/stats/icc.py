"""The intraclass correlation of an interval label field: ICC(1) and ICC(1,k) of Shrout & Fleiss
(1979, "Intraclass correlations: uses in assessing rater reliability", Case 1), from the one-way
random-effects analysis of variance, for an unbalanced design.

Why ICC(1) and not ICC(2,1) or ICC(3,1): in crowd data each item is scored by whichever annotators
the recruiting site sent, so items get different annotators, and different numbers of them. The
annotators are not crossed with the items, so an annotator's own leniency cannot be separated from
error: that is Shrout & Fleiss' Case 1 (each target rated by a different set of judges, randomly
drawn), whose model is one-way. ICC(2,1) and ICC(3,1) need every annotator to score every item
(Cases 2 and 3, two-way); on crowd data they would silently drop most items. ICC(1) reads as "how
much of the variance of one score is between items": the reliability of a single annotator's
score; ICC(1,k) is the reliability of the mean of k scores, the per-item mean the exports carry.

With unequal numbers of scores per item, the k of the formulas is k0 (Snedecor & Cochran; the
"n0" of one-way ANOVA with unequal groups): (N - sum(k_i^2) / N) / (a - 1) for a items and N
scores. Only items with at least two scores enter (one score says nothing about agreement), as
Krippendorff's alpha leaves them out too.

    MSB = sum_i k_i (mean_i - mean)^2 / (a - 1)      MSW = sum_i sum_j (x_ij - mean_i)^2 / (N - a)
    ICC(1) = (MSB - MSW) / (MSB + (k0 - 1) MSW)      ICC(1,k) = (MSB - MSW) / MSB

Shrout & Fleiss' Table 4 (6 targets, 4 judges: BMS 11.24, WMS 6.26) gives ICC(1,1) = .17 and
ICC(1,4) = .44; the tests check that, and the mean squares against scipy's one-way ANOVA
(F = MSB / MSW) on an unbalanced design. ICC(1) can be negative (less agreement than chance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from scipy.stats import f as f_distribution


@dataclass(frozen=True)
class ICC:
    single: float  # ICC(1): the reliability of one annotator's score
    average: float  # ICC(1,k): the reliability of the mean of k0 scores
    k0: float  # the (mean-like) number of scores per item of the unbalanced design
    msb: float  # between-items mean square
    msw: float  # within-items mean square
    f: float  # MSB / MSW
    p_value: float  # of F under no between-item variance (scipy's F distribution)
    n_items: int  # items with at least two scores
    n_scores: int
    reason: str | None = None  # why the figures are NaN


def icc_oneway(labels: pd.DataFrame) -> ICC:
    """ICC(1) and ICC(1,k) of a label frame with numeric values (item, annotator, value; cleaned,
    e.g. by `scores.numeric_labels`)."""
    counts = labels.groupby("item")["value"].transform("size")
    usable = labels[counts >= 2]
    a, n = int(usable["item"].nunique()), len(usable)
    if a < 2:
        return _nan(a, n, "fewer than two items have two scores")
    values = usable["value"].to_numpy(dtype=float)
    grouped = usable.groupby("item")["value"]
    sizes, means = grouped.size().to_numpy(dtype=float), grouped.mean().to_numpy(dtype=float)
    item_means = usable["item"].map(grouped.mean()).to_numpy(dtype=float)
    msb = float((sizes * (means - values.mean()) ** 2).sum() / (a - 1))
    msw = float(((values - item_means) ** 2).sum() / (n - a))
    k0 = float((n - (sizes**2).sum() / n) / (a - 1))
    if msw == 0 and msb == 0:
        return _nan(a, n, "every score is the same: no variance to divide")
    if msw == 0:  # every item's scores agree exactly: perfect reliability
        return ICC(1.0, 1.0, k0, msb, msw, math.inf, 0.0, a, n)
    f = msb / msw
    p_value = float(f_distribution.sf(f, a - 1, n - a))
    single = (msb - msw) / (msb + (k0 - 1) * msw)
    average = (msb - msw) / msb if msb > 0 else math.nan
    return ICC(float(single), float(average), k0, msb, msw, float(f), p_value, a, n)


def _nan(a: int, n: int, reason: str) -> ICC:
    nan = math.nan
    return ICC(nan, nan, nan, nan, nan, nan, nan, a, n, reason=reason)
