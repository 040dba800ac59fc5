"""Anchoring on a model's suggestions: per label field, how often annotators kept the label a
model suggested, how close their labels are to the model's with and without a suggestion shown,
and how well they agree with each other in either case. If people mostly keep what they are
shown, agreement with the model (and among people) rises with suggestions for the wrong reason.

Input: one row per annotation of the field, columns item, annotator, value (the annotator's
label; None: none), shown (a suggestion was shown with it), kept (whether the answer kept it),
model (the model's label of the item; None: the model gave none). Set values are compared as
sets. Pure: pandas in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from .agreement_sets import masi_alpha
from .alpha import Alpha, krippendorff_alpha
from .kappa import cohen_kappa
from .labels import clean_labels, is_missing

INTERVAL_KAPPA = "κ takes categories; an interval field's closeness is its α"
NO_PAIRS = "no annotation has a model's label of its item"
NOT_SHOWN = "no suggestion was shown"
ONE_CATEGORY = "a single label on both sides: chance agreement is 1, κ is 0/0"


@dataclass(frozen=True)
class WithModel:
    """The annotations' agreement with the model's label of their items, all annotators pooled:
    `equal`, the share of the `n` (annotation, model) pairs that are the same label; `kappa`,
    Cohen's κ over those pairs (NaN with `reason` where it cannot be computed)."""

    n: int
    equal: float
    kappa: float
    reason: str | None = None


@dataclass(frozen=True)
class FieldSuggestions:
    n_shown: int  # annotations saved with a suggestion shown
    n_kept: int  # of those, the ones that kept it
    kept_share: float  # NaN when none was shown
    model_shown: WithModel  # annotations shown the suggestion
    model_not_shown: WithModel  # annotations without one (suggestions off, or no label for that page)
    among_shown: Alpha  # agreement among annotators, at the field's level, when shown
    among_not_shown: Alpha


def _comparable(value: object, level: str) -> object:
    """A label as compared: a set (a list of members) as a frozenset."""
    return frozenset(value) if level == "set" and isinstance(value, list | tuple | set | frozenset) else value


def agreement_with_model(humans: Sequence, model: Sequence, *, level: str = "nominal") -> WithModel:
    """Agreement of aligned labels (`humans[i]` an annotation, `model[i]` the model's label of its
    item); pairs with either label missing are left out."""
    pairs = [
        (_comparable(h, level), _comparable(m, level))
        for h, m in zip(humans, model, strict=True)
        if not is_missing(h) and not is_missing(m)
    ]
    if not pairs:
        return WithModel(0, math.nan, math.nan, NO_PAIRS)
    first, second = [h for h, _ in pairs], [m for _, m in pairs]
    equal = sum(h == m for h, m in pairs) / len(pairs)
    if level == "interval":
        return WithModel(len(pairs), equal, math.nan, INTERVAL_KAPPA)
    kappa = cohen_kappa(first, second)
    return WithModel(len(pairs), equal, kappa, ONE_CATEGORY if math.isnan(kappa) else None)


def among_annotators(labels: pd.DataFrame, *, level: str, order: Sequence | None = None) -> Alpha:
    """Krippendorff's α of the annotators' labels (item, annotator, value) at the field's level
    (MASI distance for sets), as the report's agreement table measures the field."""
    cleaned = clean_labels(labels[["item", "annotator", "value"]], sets=level == "set")
    if level == "set":
        return masi_alpha(cleaned, iterations=0)
    return krippendorff_alpha(cleaned, level=level, order=order, iterations=0)


def suggestion_figures(frame: pd.DataFrame, *, level: str, order: Sequence | None = None) -> FieldSuggestions:
    """Every figure of one field (see the module's docstring for `frame`)."""
    shown_mask = frame["shown"].fillna(False).astype(bool)
    shown, other = frame[shown_mask], frame[~shown_mask]
    n_kept = int(shown["kept"].fillna(False).astype(bool).sum())
    return FieldSuggestions(
        n_shown=len(shown),
        n_kept=n_kept,
        kept_share=n_kept / len(shown) if len(shown) else math.nan,
        model_shown=agreement_with_model(list(shown["value"]), list(shown["model"]), level=level),
        model_not_shown=agreement_with_model(list(other["value"]), list(other["model"]), level=level),
        among_shown=among_annotators(shown, level=level, order=order),
        among_not_shown=among_annotators(other, level=level, order=order),
    )
