"""Observed agreement, Cohen's kappa (per annotator pair) and Fleiss' kappa on a label frame.

All three treat labels as nominal categories (unweighted): an ordinal or interval field gets its
level-aware coefficient from Krippendorff's alpha (`alpha.py`). Input: a frame cleaned by
`labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .labels import value_counts, value_domain


@dataclass(frozen=True)
class ObservedAgreement:
    value: float  # mean over items with >= 2 labels of the share of agreeing label pairs
    n_items: int  # items with >= 2 labels
    reason: str | None = None  # why value is NaN


@dataclass(frozen=True)
class CohenKappas:
    pairs: pd.DataFrame  # annotator_a, annotator_b, n_shared, agreement, kappa (NaN: not computable)
    mean: float  # mean of the computable pairwise kappas
    n_pairs: int  # pairs with a computable kappa
    reason: str | None = None


@dataclass(frozen=True)
class FleissKappa:
    value: float
    n_items: int  # items used: those with exactly raters_per_item labels
    raters_per_item: int
    n_excluded: int  # items with >= 2 labels but another count, left out
    reason: str | None = None


def observed_agreement(labels: pd.DataFrame) -> ObservedAgreement:
    """Per item, the share of ordered pairs of its labels that are equal (sum n_k(n_k - 1) over
    m(m - 1)); then the plain mean over items with at least two labels, each item weighing the
    same. With complete data this equals the mean over annotator pairs of their % agreement."""
    _, counts = value_counts(labels, value_domain(labels))
    m = counts.sum(axis=1)
    pairable = m >= 2
    if not pairable.any():
        return ObservedAgreement(math.nan, 0, "no item has two labels")
    n, m = counts[pairable], m[pairable]
    per_item = (n * (n - 1)).sum(axis=1) / (m * (m - 1))
    return ObservedAgreement(float(per_item.mean()), int(pairable.sum()))


def cohen_kappa(first: Sequence, second: Sequence) -> float:
    """Cohen's (1960) kappa of two aligned label sequences; NaN when chance agreement is 1 (both
    gave one and the same label throughout), where kappa is 0/0.

    Computed on whole counts, (n·agreeing − chance) / (n² − chance) with chance = Σ count_a·count_b,
    and divided once: the result is the exact kappa correctly rounded, the same on every machine.
    (A float dot product of the two label shares goes through BLAS, whose last bit depends on the
    kernel OpenBLAS picks for the CPU, and that reached the annotators export.)"""
    codes, _ = pd.factorize(pd.Series(list(first) + list(second), dtype=object))
    a, b = codes[: len(first)], codes[len(first) :]
    n = len(a)
    if n == 0:
        return math.nan
    k = int(codes.max()) + 1
    chance = sum(int(x) * int(y) for x, y in zip(np.bincount(a, minlength=k), np.bincount(b, minlength=k)))
    agreeing = int(np.count_nonzero(a == b))
    return math.nan if chance == n * n else (n * agreeing - chance) / (n * n - chance)


def cohen_kappa_pairs(labels: pd.DataFrame, *, min_shared: int = 2) -> CohenKappas:
    """Cohen's kappa of every pair of annotators on the items both labelled. Pairs with no shared
    item are not listed; pairs with fewer than `min_shared` have NaN. The mean is over the pairs
    with a kappa (a pair whose kappa is 0/0 counts for nothing, not for zero)."""
    codes = labels.assign(code=pd.factorize(labels["value"])[0])
    matrix = codes.pivot(index="item", columns="annotator", values="code").sort_index(axis=1)
    who = matrix.columns.to_list()
    grid = matrix.fillna(-1).to_numpy(dtype=np.int64)
    seen = (grid >= 0).astype(np.int64)
    shared = seen.T @ seen
    rows = []
    for i in range(len(who)):
        for j in range(i + 1, len(who)):
            if shared[i, j] == 0:
                continue
            both = (grid[:, i] >= 0) & (grid[:, j] >= 0)
            a, b = grid[both, i], grid[both, j]
            kappa = cohen_kappa(a, b) if len(a) >= min_shared else math.nan
            rows.append((who[i], who[j], len(a), float(np.mean(a == b)), kappa))
    pairs = pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n_shared", "agreement", "kappa"])
    valid = pairs["kappa"].dropna()
    if valid.empty:
        reason = (
            "no annotator pair shares enough items with varied labels" if rows else "no two annotators share an item"
        )
        return CohenKappas(pairs, math.nan, 0, reason)
    return CohenKappas(pairs, float(valid.mean()), len(valid))


def fleiss_kappa(labels: pd.DataFrame) -> FleissKappa:
    """Fleiss' (1971) kappa. It needs the same number of labels m on every item, so it is computed
    on the items with the most common count m among items with >= 2 labels (a tie between counts
    goes to the larger m); items with another count are left out and counted in n_excluded."""
    _, counts = value_counts(labels, value_domain(labels))
    m_all = counts.sum(axis=1)
    pairable = m_all[m_all >= 2]
    if pairable.size == 0:
        return FleissKappa(math.nan, 0, 0, 0, "no item has two labels")
    sizes, freq = np.unique(pairable, return_counts=True)
    m = int(sizes[freq == freq.max()].max())
    n = counts[m_all == m]
    p_i = ((n * n).sum(axis=1) - m) / (m * (m - 1))
    p_j = n.sum(axis=0) / n.sum()
    p_bar, p_e = float(p_i.mean()), float((p_j**2).sum())
    excluded = int(pairable.size - len(n))
    if math.isclose(p_e, 1.0):
        return FleissKappa(math.nan, len(n), m, excluded, "a single category was used: chance agreement is 1")
    return FleissKappa((p_bar - p_e) / (1 - p_e), len(n), m, excluded)
