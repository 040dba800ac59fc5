"""Krippendorff's alpha with the field's level of measurement, and a bootstrap interval.

The coefficient is the `krippendorff` package's, fed the items × values count matrix, so missing
labels are handled as Krippendorff defines (items with fewer than two labels are not pairable and
drop out). The interval resamples items with replacement (seeded), recomputes alpha on each
resample, and takes the 2.5th and 97.5th percentiles (for confidence=0.95).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import krippendorff
import numpy as np
import pandas as pd

from .labels import value_counts, value_domain

#: a field's level of measurement -> the krippendorff package's name of its distance
METRICS: dict[str, krippendorff.LevelOfMeasurement] = {
    "nominal": "nominal",
    "ordinal": "ordinal",
    "interval": "interval",
}
LEVELS = tuple(METRICS)


class Bootstrap(TypedDict):
    """The bootstrap interval's settings, as every alpha function takes them."""

    iterations: int
    seed: int
    confidence: float


@dataclass(frozen=True)
class Alpha:
    value: float
    low: float  # bootstrap interval; NaN when not computed
    high: float
    level: str  # nominal | ordinal | interval | set (MASI)
    n_items: int  # pairable items: those with >= 2 labels
    n_values: int  # pairable labels
    iterations: int  # bootstrap resamples that gave an alpha (a resample with one value gives none)
    reason: str | None = None  # why value is NaN


def krippendorff_alpha(
    labels: pd.DataFrame,
    *,
    level: str = "nominal",
    order: Sequence | None = None,
    iterations: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Alpha:
    """Alpha at `level` ('nominal', 'ordinal' or 'interval'); ordinal values rank by `order` when
    given, else by their sort order; interval values must be numbers. `iterations=0` skips the
    bootstrap."""
    metric = METRICS.get(level)
    if metric is None:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
    domain = value_domain(labels, order=order)
    _, counts = value_counts(labels, domain)
    metric_domain = np.asarray(domain, dtype=float) if level == "interval" else np.arange(len(domain))
    return alpha_from_counts(
        counts, metric_domain, metric, level_name=level, iterations=iterations, seed=seed, confidence=confidence
    )


def alpha_from_counts(
    counts: np.ndarray,
    domain: np.ndarray,
    metric: krippendorff.LevelOfMeasurement,
    *,
    level_name: str,
    iterations: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Alpha:
    """Alpha and its bootstrap interval from an items × values count matrix; `metric` is a level
    name or a distance callable as `krippendorff.alpha` takes it (the MASI distance for sets)."""
    pairable = counts[counts.sum(axis=1) >= 2]
    n_values = int(pairable.sum())
    if len(pairable) == 0:
        return Alpha(math.nan, math.nan, math.nan, level_name, 0, n_values, 0, reason="no item has two labels")
    if np.count_nonzero(pairable.sum(axis=0)) < 2:
        reason = "a single value was given: no variation, alpha is 0/0"
        return Alpha(math.nan, math.nan, math.nan, level_name, len(pairable), n_values, 0, reason=reason)
    value = _alpha(pairable, domain, metric)
    low, high, done = _bootstrap(pairable, domain, metric, iterations, seed, confidence)
    return Alpha(value, low, high, level_name, len(pairable), n_values, done)


def _alpha(counts: np.ndarray, domain: np.ndarray, metric: krippendorff.LevelOfMeasurement) -> float:
    """One alpha; NaN (not a warning) when the counts hold a single value, so De is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=metric))


def _bootstrap(
    pairable: np.ndarray,
    domain: np.ndarray,
    metric: krippendorff.LevelOfMeasurement,
    iterations: int,
    seed: int,
    confidence: float,
) -> tuple[float, float, int]:
    """Percentile interval over `iterations` resamples of the pairable items (seeded). Resamples
    whose alpha is undefined (one value only) are left out; the count that remain is returned."""
    if iterations <= 0:
        return math.nan, math.nan, 0
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(pairable), size=(iterations, len(pairable)))
    values = np.array([_alpha(pairable[draw], domain, metric) for draw in draws])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return math.nan, math.nan, 0
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high), int(values.size)
