"""A model's labels scored against a reference label per item (the humans' aggregated label, or
their mean rating): on the items both have, the share that match and Cohen's kappa for categories
(nominal, ordinal, sets as wholes), Pearson's and Spearman's correlation and the mean absolute
error for numbers. Pure: mappings in, a JSON-able dict out."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, TypeVar

import numpy as np
from scipy import stats

from .kappa import cohen_kappa
from .labels import is_missing

CATEGORY_LEVELS = ("nominal", "ordinal", "set")
K = TypeVar("K", bound=Hashable)


def prediction_scores(reference: Mapping[K, Any], predicted: Mapping[K, Any], level: str) -> dict[str, Any]:
    """The scores of `predicted` against `reference` (item -> value; a missing value is no label)
    on the items both label; `n_items` counts them. None where a figure cannot be computed (no
    item, a constant sequence)."""
    items = [i for i in reference if i in predicted and not is_missing(reference[i]) and not is_missing(predicted[i])]
    if level in CATEGORY_LEVELS:
        return _categories([_label(reference[i], level) for i in items], [_label(predicted[i], level) for i in items])
    return _numbers(np.array([float(reference[i]) for i in items]), np.array([float(predicted[i]) for i in items]))


def _label(value: Any, level: str) -> Any:
    return frozenset(value) if level == "set" else value


def _categories(truth: list[Any], guess: list[Any]) -> dict[str, Any]:
    n = len(truth)
    return {
        "n_items": n,
        "accuracy": _number(sum(a == b for a, b in zip(truth, guess)) / n) if n else None,
        "kappa": _number(cohen_kappa(truth, guess)),
    }


def _numbers(truth: np.ndarray, guess: np.ndarray) -> dict[str, Any]:
    n = len(truth)
    varied = n >= 2 and np.ptp(truth) > 0 and np.ptp(guess) > 0
    return {
        "n_items": n,
        "pearson": _number(stats.pearsonr(truth, guess).statistic) if varied else None,
        "spearman": _number(stats.spearmanr(truth, guess).statistic) if varied else None,
        "mae": _number(np.mean(np.abs(truth - guess))) if n else None,
    }


def _number(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value
