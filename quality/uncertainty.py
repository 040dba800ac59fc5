"""The aggregated label of each nominal/ordinal field with how sure it is, as a quality run stores
it: per item the label, its posterior, the bootstrap interval and the method (the `items` export's
columns), and per field a summary with each annotator's competence and interval (the report).

Computation only; the statistics are `quality.stats.uncertainty`. The method is the project's
`aggregation_method` for the field; "auto" is `quality.stats.uncertainty.auto_method`. The
columns of majority vote and plain Dawid-Skene that runs stored before (`<field>_majority`,
`<field>_ds_label`, ...) stay as they were beside these: a project's existing columns keep their
values whatever the method.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from annotation.kinds import AUTO
from quality.stats.uncertainty import Uncertainty, auto_method, label_uncertainty

#: per-item columns of an aggregated field, after its name: `<field>_label` ...
UNCERTAINTY_SUFFIXES = ("label", "posterior", "posterior_low", "posterior_high", "method")
SEED = 0  # the resamples are seeded, so a run on the same labels exports the same intervals
CONFIDENCE = 0.95


def field_uncertainty(
    cleaned: pd.DataFrame, name: str, *, requested: str, rounds: int, annotator_names: Mapping[Any, str]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(per-item columns, JSON-able summary) of one field's labels (`requested`: a method or "auto")."""
    method = auto_method(cleaned) if requested == AUTO else requested
    result = label_uncertainty(cleaned, method=method, rounds=rounds, seed=SEED, confidence=CONFIDENCE)
    items = result.items
    table = pd.DataFrame(
        {
            f"{name}_label": items["label"],
            f"{name}_posterior": items["posterior"],
            f"{name}_posterior_low": items["low"],
            f"{name}_posterior_high": items["high"],
            f"{name}_method": pd.Series(method, index=items.index, dtype=object),
        }
    )
    return table, _summary(result, requested, annotator_names)


def _summary(result: Uncertainty, requested: str, names: Mapping[Any, str]) -> dict[str, Any]:
    items, annotators = result.items, result.annotators
    return {
        "method": result.method,
        "requested": requested,
        "rounds": result.rounds,
        "confidence": result.confidence,
        "n_items": int(len(items)),
        "ties": int(items["tie"].sum()),
        "mean_posterior": _number(items["posterior"].mean()),
        "annotators": [
            {
                "id": _number(who),
                "name": names.get(who, str(who)),
                "n_labels": int(row.n_labels),
                "competence": _number(row.competence),
                "low": _number(row.low),
                "high": _number(row.high),
            }
            for who, row in annotators.sort_values("competence", ascending=False, kind="stable").iterrows()
        ],
    }


def _number(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
