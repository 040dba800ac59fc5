"""Majority vote per item, with ties reported instead of broken, and each annotator's agreement
with the majority of the others (Cohen's kappa against it).

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .kappa import cohen_kappa
from .labels import value_counts, value_domain

MAJORITY_COLUMNS = ("label", "tie", "tied_labels", "votes", "n_labels", "share")
PER_ANNOTATOR_COLUMNS = ("n_labels", "n_items", "n_tied", "agreement", "kappa")


def majority_vote(labels: pd.DataFrame) -> pd.DataFrame:
    """One row per item (index item): `label` the most given value, or None when two or more
    values share the top count; then `tie` is True and `tied_labels` holds them (a tuple, in the
    values' sort order; empty without a tie). `votes` is the top count, `share` votes/n_labels."""
    domain = value_domain(labels)
    items, counts = value_counts(labels, domain)
    top = counts.max(axis=1, initial=0)
    is_top = (counts == top[:, None]) & (top[:, None] > 0)
    tie = is_top.sum(axis=1) > 1
    winners = [tuple(domain[j] for j in np.flatnonzero(row)) for row in is_top]
    n_labels = counts.sum(axis=1)
    return pd.DataFrame(
        {
            "label": pd.Series([None if tied else won[0] for won, tied in zip(winners, tie)], dtype=object),
            "tie": tie,
            "tied_labels": [won if tied else () for won, tied in zip(winners, tie)],
            "votes": top,
            "n_labels": n_labels,
            "share": top / np.maximum(n_labels, 1),
        },
    ).set_index(items)


def agreement_with_majority(labels: pd.DataFrame) -> pd.DataFrame:
    """Per annotator (index annotator): their labels against the majority label of the *other*
    annotators, on the items the annotator labelled and at least one other did. An item where the
    others tie has no majority and is left out (counted in `n_tied`), so no tie is broken for
    or against the annotator. `agreement` is the share of items matching the majority, `kappa`
    Cohen's kappa of the two label sequences (NaN when 0/0 or no item is left)."""
    domain = value_domain(labels)
    items, counts = value_counts(labels, domain)
    codes = pd.Index(pd.Series(list(domain), dtype=object)).get_indexer(labels["value"])
    rows = {}
    for who, mine in labels.assign(code=codes).groupby("annotator", sort=True):
        at = items.get_indexer(mine["item"])
        others = counts[at].copy()
        others[np.arange(len(at)), mine["code"].to_numpy()] -= 1
        top = others.max(axis=1)
        tied = (others == top[:, None]).sum(axis=1) > 1
        usable = (top > 0) & ~tied
        own, majority = mine["code"].to_numpy()[usable], others[usable].argmax(axis=1)
        rows[who] = {
            "n_labels": len(mine),
            "n_items": int(usable.sum()),
            "n_tied": int(((top > 0) & tied).sum()),
            "agreement": float(np.mean(own == majority)) if usable.any() else math.nan,
            "kappa": cohen_kappa(own, majority) if usable.any() else math.nan,
        }
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(PER_ANNOTATOR_COLUMNS))
    frame.index.name = "annotator"
    return frame
