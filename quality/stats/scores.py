"""Per-item results of an interval label field (a 0-100 slider, a number, a Likert scale read as
interval): the mean, median and standard deviation of the item's scores, a bootstrap interval of
the mean, and the mean of the annotators' z-scores, as WMT reports direct assessment.

Input: the long label frame (item, annotator, value; `labels.py`) with numeric values.

- The bootstrap resamples the item's own scores with replacement `iterations` times (seeded with
  `seed` afresh for every item, so an item's interval does not depend on the other items) and
  takes the percentile interval of the resampled means (`uncertainty.percentile_interval`, the
  percentiles the other intervals of the report use); the draws are those of
  `scipy.stats.bootstrap(method="percentile")` with the same generator, which the tests check.
- z-scores (Graham et al. 2017, "Can machine translation systems be evaluated by the crowd
  alone", §4; WMT's "z" since 2017): every score is standardised by its annotator's mean and
  sample standard deviation (ddof=1) over all the items they scored in this field, so a strict
  and a lenient annotator count alike; an item's z is the mean of its scores' z. An annotator
  with fewer than two scores, or the same score everywhere, has no z (no spread to divide by):
  their scores count in the mean but not in z.
- The standard deviation is the sample one (ddof=1): NaN for an item with one score; so is the
  interval (one score has no spread to resample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .labels import clean_labels
from .uncertainty import percentile_interval

#: items whose bootstrap means are computed in one array (memory: items x iterations x scores)
CHUNK_ITEMS = 256
#: the per-item columns, in the order the exports write them
ITEM_COLUMNS = ("n", "mean", "median", "sd", "ci_low", "ci_high", "z")


@dataclass(frozen=True)
class IntervalScores:
    items: pd.DataFrame  # index item (sorted): ITEM_COLUMNS
    annotators: pd.DataFrame  # index annotator: n, mean, sd (what their z-scores divide by)
    iterations: int
    confidence: float


def numeric_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """The label frame cleaned, values as floats; ValueError naming the item and annotator of a
    value that is not a finite number."""
    labels = clean_labels(frame)
    values = pd.to_numeric(labels["value"], errors="coerce").astype(float)
    wrong = ~np.isfinite(values.to_numpy())
    if wrong.any():
        item, annotator, value = labels[wrong].to_numpy(dtype=object)[0].tolist()
        raise ValueError(f"interval value {value!r} of item {item!r} by annotator {annotator!r} is not a finite number")
    return labels.assign(value=values)


def interval_scores(
    frame: pd.DataFrame, *, iterations: int = 1000, seed: int = 0, confidence: float = 0.95
) -> IntervalScores:
    """The per-item figures of an interval field (module docstring); `iterations=0` skips the
    bootstrap (intervals NaN)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    labels = numeric_labels(frame)
    grouped = labels.groupby("annotator")["value"]
    annotators = pd.DataFrame({"n": grouped.size(), "mean": grouped.mean(), "sd": grouped.std(ddof=1)})
    spread = annotators["sd"].where(annotators["sd"] > 0)
    z = (labels["value"] - labels["annotator"].map(annotators["mean"])) / labels["annotator"].map(spread)
    by_item = labels.assign(z=z.astype(float)).groupby("item", sort=True)
    items = pd.DataFrame(
        {
            "n": by_item["value"].size(),
            "mean": by_item["value"].mean(),
            "median": by_item["value"].median(),
            "sd": by_item["value"].std(ddof=1),
            "z": by_item["z"].mean(),
        }
    )
    low, high = _intervals(labels, items.index, iterations=iterations, seed=seed, confidence=confidence)
    items["ci_low"], items["ci_high"] = low, high
    return IntervalScores(items[list(ITEM_COLUMNS)], annotators, iterations, confidence)


def _intervals(
    labels: pd.DataFrame, items: pd.Index, *, iterations: int, seed: int, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """`bootstrap_mean` of every item's scores (in `items` order), computed for all items with the
    same number of scores at once: with the same seed they draw the same resample positions."""
    low, high = np.full(len(items), np.nan), np.full(len(items), np.nan)
    if iterations <= 0 or labels.empty:
        return low, high
    ordered = labels.sort_values("item", kind="stable")  # an item's scores in their given order
    positions = items.get_indexer(ordered["item"])
    sizes = np.bincount(positions, minlength=len(items))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    values = ordered["value"].to_numpy(dtype=float)
    tail = (1 - confidence) / 2
    for size in np.unique(sizes[sizes >= 2]):
        rows = np.flatnonzero(sizes == size)
        draws = np.random.default_rng(seed).integers(0, size, size=(iterations, size))
        for chunk in np.array_split(rows, max(1, len(rows) // CHUNK_ITEMS)):
            matrix = values[starts[chunk][:, None] + np.arange(size)]  # chunk items x their scores
            means = matrix[:, draws].mean(axis=2)  # chunk items x iterations
            low[chunk], high[chunk] = np.quantile(means, [tail, 1 - tail], axis=1)
    return low, high


def bootstrap_mean(values: np.ndarray, *, iterations: int, seed: int, confidence: float) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of `values` (NaN with fewer than two values
    or no iterations)."""
    values = np.asarray(values, dtype=float)
    if iterations <= 0 or values.size < 2:
        return math.nan, math.nan
    draws = np.random.default_rng(seed).integers(0, values.size, size=(iterations, values.size))
    return percentile_interval(values[draws].mean(axis=1), confidence)
