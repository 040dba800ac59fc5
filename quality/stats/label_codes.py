"""The label frame as integer codes, and the per-item answer every latent-class aggregator gives.

Dawid-Skene, its one-coin form, MACE and GLAD all work on arrays (which item, which annotator,
which value, per label) and all end with the same table: items x values posteriors and, per item,
the most probable value, its probability and whether another value ties with it. This module
holds those two steps once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .labels import value_domain


@dataclass(frozen=True)
class LabelCodes:
    item: np.ndarray  # per label row: item index (into `items`)
    who: np.ndarray  # annotator index (into `annotators`)
    value: np.ndarray  # value index (into `domain`)
    items: pd.Index  # sorted
    annotators: pd.Index  # sorted
    domain: list  # `labels.value_domain` order

    @property
    def shape(self) -> tuple[int, int, int]:
        """Items, annotators, values."""
        return len(self.items), len(self.annotators), len(self.domain)


def encode_labels(labels: pd.DataFrame, *, method: str) -> LabelCodes:
    """Codes of a frame cleaned by `labels.clean_labels`; `method` names the caller in the error
    raised when there is no label at all."""
    if labels.empty:
        raise ValueError(f"{method} needs at least one label")
    domain = value_domain(labels)
    item_codes, items = pd.factorize(labels["item"], sort=True)
    who_codes, annotators = pd.factorize(labels["annotator"], sort=True)
    value_codes = pd.Index(pd.Series(domain, dtype=object)).get_indexer(labels["value"])
    return LabelCodes(
        item_codes,
        who_codes,
        value_codes,
        pd.Index(items, name="item"),
        pd.Index(annotators, name="annotator"),
        domain,
    )


def vote_shares(codes: LabelCodes) -> np.ndarray:
    """Items x values: each item's share of labels per value (the majority-vote start of EM)."""
    n_items, _, n_values = codes.shape
    shares = np.zeros((n_items, n_values))
    np.add.at(shares, (codes.item, codes.value), 1.0)
    return shares / shares.sum(axis=1, keepdims=True)


def label_columns(codes: LabelCodes) -> pd.Index:
    """The values as a column index named `label`."""
    return pd.Index(pd.Series(codes.domain, dtype=object), name="label")


def item_answers(codes: LabelCodes, posteriors: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(chosen, table): per item its most probable label, that label's `posterior` and `tie`
    (another label as probable: the first in sort order is shown, the tie flagged rather than
    hidden); and the items x labels posteriors as a frame."""
    table = pd.DataFrame(posteriors, index=codes.items, columns=label_columns(codes))
    best = posteriors.argmax(axis=1)
    top = posteriors[np.arange(len(best)), best]
    chosen = pd.DataFrame(
        {
            "label": [codes.domain[j] for j in best],
            "posterior": top,
            "tie": np.isclose(posteriors, top[:, None]).sum(axis=1) > 1,
        },
        index=codes.items,
    )
    return chosen, table


def normalise_log(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of log joint probabilities -> (posteriors, each row's log evidence). A plain stable
    log-sum-exp: scipy's is several times slower on small arrays, and EM calls this every round."""
    top = joint.max(axis=1, keepdims=True)
    scaled = np.exp(joint - top)
    total = scaled.sum(axis=1, keepdims=True)
    return scaled / total, (top + np.log(total))[:, 0]
