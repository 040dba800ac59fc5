"""Krippendorff's alpha for set-valued labels with the MASI distance (Passonneau 2006).

The point estimate is nltk's `AnnotationTask(distance=masi).alpha()`. The bootstrap interval
recomputes alpha on resampled items through `alpha.alpha_from_counts` with the same distance as a
table over the distinct sets (nltk's alpha is pure Python and too slow to run a thousand times);
the two engines agree on the full data (tests/quality/stats/test_agreement_sets.py).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from .alpha import Alpha, alpha_from_counts
from .labels import value_counts, value_domain


def masi(first: frozenset, second: frozenset) -> float:
    """nltk's MASI distance, with 0 for two identical sets: nltk's formula divides by the size of
    the union, which is 0 for two empty sets (an annotator may rightly choose no label)."""
    return 0.0 if first == second else float(masi_distance(first, second))


def masi_alpha(labels: pd.DataFrame, *, iterations: int = 1000, seed: int = 0, confidence: float = 0.95) -> Alpha:
    """Alpha with the MASI distance on a frame whose values are frozensets (`clean_labels(...,
    sets=True)`); NaN with a reason when no item has two labels or only one set was ever given."""
    domain = value_domain(labels)
    _, counts = value_counts(labels, domain)
    distances = np.array([[masi(a, b) for b in domain] for a in domain], dtype=float)

    def table(v1, v2, i1, i2, n_v, dtype=np.float64):  # krippendorff's metric signature
        return distances[i1, i2].astype(dtype)

    rough = alpha_from_counts(
        counts, np.arange(len(domain)), table, level_name="set", iterations=iterations, seed=seed, confidence=confidence
    )
    if math.isnan(rough.value):
        return rough
    triples = [(row.annotator, row.item, row.value) for row in labels.itertuples(index=False)]
    value = float(AnnotationTask(data=triples, distance=masi).alpha())
    return Alpha(value, rough.low, rough.high, "set", rough.n_items, rough.n_values, rough.iterations)
