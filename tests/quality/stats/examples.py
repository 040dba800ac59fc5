"""Published worked examples and small builders shared by the agreement tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), the reliability-data example:
# 4 observers (rows) x 12 units (columns), None where an observer gave no value. He publishes
# alpha = 0.743 (nominal), 0.815 (ordinal), 0.849 (interval), 0.797 (ratio). The same table and
# the ordinal and ratio figures are in the `krippendorff` package's tests, citing that paper, p. 8.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
KRIPPENDORFF_2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}

# Fleiss (1971) as given on Wikipedia's "Fleiss' kappa" page (worked example): 10 subjects,
# 14 raters each, 5 categories; cell = raters who put the subject in the category. kappa = 0.210
# (P-bar = 0.378, P-bar-e = 0.213; column shares 0.143 0.200 0.279 0.150 0.229).
FLEISS_1971_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]
FLEISS_1971_KAPPA = 0.210


def from_columns(table: dict[str, list]) -> pd.DataFrame:
    """{annotator: [value per item, None = not labelled]} -> the long label frame."""
    rows = [
        {"item": item, "annotator": who, "value": value}
        for who, values in table.items()
        for item, value in enumerate(values)
        if value is not None
    ]
    return pd.DataFrame(rows)


def from_counts(counts: list[list[int]]) -> pd.DataFrame:
    """Subjects x categories counts -> a long frame; rater r of every subject is annotator r (Fleiss
    lets raters differ per subject; the coefficient depends only on the counts)."""
    rows = []
    for item, row in enumerate(counts):
        values = [category for category, n in enumerate(row) for _ in range(n)]
        rows += [{"item": item, "annotator": f"r{r}", "value": v} for r, v in enumerate(values)]
    return pd.DataFrame(rows)


def random_labels(
    seed: int, *, items: int = 40, annotators: int = 5, values=(0, 1, 2), missing: float = 0.3
) -> pd.DataFrame:
    """Labels that agree more than chance (a noisy copy of a hidden truth), some cells missing."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(values, size=items)
    rows = []
    for item in range(items):
        for who in range(annotators):
            if rng.random() < missing:
                continue
            value = truth[item] if rng.random() < 0.7 else rng.choice(values)
            rows.append({"item": item, "annotator": f"a{who}", "value": value.item()})
    return pd.DataFrame(rows)


def rounded(value: float) -> float:
    return round(value, 3) if not math.isnan(value) else value
