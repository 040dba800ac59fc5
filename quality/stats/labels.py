"""The long label frame that every agreement and aggregation function takes, and its pivots.

A label frame has one row per label with columns `item`, `annotator` and `value`. An annotator who
did not see an item has no row; a row whose value is missing (None/NaN) counts as no row. Values
are hashable labels (str, int, ...) or, for set-valued fields, any iterable of labels (turned into
a frozenset, so {"a", "b"} and ["b", "a"] are the same label; the empty set is a label too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

COLUMNS = ("item", "annotator", "value")


def is_missing(value: object) -> bool:
    """None, NaN and pandas' NA mean "no label"; a set, even an empty one, is a label."""
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def clean_labels(frame: pd.DataFrame, *, sets: bool = False) -> pd.DataFrame:
    """The three columns, rows without a value dropped, set values as frozensets.

    A second label by the same annotator for the same item is an error rather than silently kept
    or dropped: which of the two counts is the caller's decision (e.g. the latest submission)."""
    missing = [name for name in COLUMNS if name not in frame.columns]
    if missing:
        raise ValueError(f"label frame lacks column(s) {missing}; expected {list(COLUMNS)}")
    known = frame.loc[[not is_missing(value) for value in frame["value"]], list(COLUMNS)]
    if sets:
        known = known.assign(value=[frozenset(value) for value in known["value"]])
    doubled = known.duplicated(subset=["item", "annotator"], keep=False)
    if doubled.any():
        pairs = known.loc[doubled, ["item", "annotator"]].drop_duplicates().head(5)
        raise ValueError(
            "an annotator labelled the same item twice; keep one label per (item, annotator): "
            + ", ".join(f"({row.item!r}, {row.annotator!r})" for row in pairs.itertuples())
        )
    return known.reset_index(drop=True)


def value_domain(labels: pd.DataFrame, *, order: Sequence | None = None) -> list:
    """The distinct values: in `order` when given (every value must be in it), else sorted when
    they sort (numbers, strings), else in order of first appearance (sets, mixed types)."""
    seen = list(pd.unique(labels["value"]))
    if order is not None:
        unknown = [value for value in seen if value not in set(order)]
        if unknown:
            raise ValueError(f"values {unknown[:5]} are not in the given order {list(order)}")
        return list(order)
    try:
        return sorted(seen)
    except TypeError:
        return seen


def reliability_matrix(labels: pd.DataFrame) -> pd.DataFrame:
    """Items × annotators, the label in each cell (missing where the annotator gave none).

    Krippendorff's layout transposed: `krippendorff.alpha` wants annotators × items (`.T`)."""
    matrix = labels.pivot(index="item", columns="annotator", values="value")
    return matrix.sort_index(axis=0).sort_index(axis=1)


def value_counts(labels: pd.DataFrame, domain: Sequence) -> tuple[pd.Index, np.ndarray]:
    """Items × values: how many annotators gave each value to each item (Krippendorff's n_uk).

    Returns the item index (sorted) and the counts, with columns in the order of `domain`."""
    codes = pd.Index(pd.Series(list(domain), dtype=object)).get_indexer(labels["value"])
    item_codes, items = pd.factorize(labels["item"], sort=True)
    counts = np.zeros((len(items), len(domain)), dtype=np.int64)
    np.add.at(counts, (item_codes, codes), 1)
    return pd.Index(items, name="item"), counts
