"""Every applicable agreement coefficient of one label field, in one frozen dataclass.

Call `field_agreement(frame, level=...)` with the long label frame (item, annotator, value; see
`labels.py`) and the field's level of measurement:
- 'nominal' / 'ordinal' / 'interval': observed agreement, Krippendorff's alpha at the level with
  a bootstrap interval, and each annotator's kappa against the others' majority; for 'nominal'
  and 'ordinal' Cohen's kappa per pair and its mean and Fleiss' kappa (unweighted: values as
  categories); for 'interval' (scores) instead of the kappas, which would count 37 against 38 as
  far apart as 0 against 100, the ICC(1) of `icc.py`, the mean pairwise Spearman and each
  annotator's Spearman against the mean of the rest, from `ratings.py`;
- 'set': exact-match observed agreement and alpha with the MASI distance; kappas need single
  labels, so they are None with the reason in `not_applicable`.
A coefficient that cannot be computed on these data (one annotator, no item with two labels, a
single value) is NaN with its reason in the coefficient's own `reason`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import pandas as pd

from .aggregation import agreement_with_majority
from .agreement_sets import masi_alpha
from .alpha import Alpha, Bootstrap, krippendorff_alpha
from .icc import ICC, icc_oneway
from .kappa import (
    CohenKappas,
    FleissKappa,
    ObservedAgreement,
    cohen_kappa_pairs,
    fleiss_kappa,
    observed_agreement,
)
from .labels import clean_labels
from .ratings import (
    AgreementVsRest,
    PairwiseAgreement,
    agreement_vs_rest,
    pairwise_spearman,
)

LEVELS = ("nominal", "ordinal", "interval", "set")
SET_KAPPA = "kappa takes one label per annotator; a set-valued field is judged by alpha with MASI"
NOT_RATINGS = "Spearman is for ratings (level 'interval')"
INTERVAL_KAPPA = (
    "kappa treats every value as its own category (37 and 38 as far apart as 0 and 100); "
    "an interval field is judged by alpha (interval) and the ICC"
)


@dataclass(frozen=True)
class FieldAgreement:
    level: str
    n_items: int  # items with at least one label
    n_annotators: int
    n_labels: int
    observed: ObservedAgreement
    alpha: Alpha
    cohen: CohenKappas | None = None
    fleiss: FleissKappa | None = None
    per_annotator: pd.DataFrame | None = None  # see aggregation.agreement_with_majority (+ spearman_vs_rest)
    spearman: PairwiseAgreement | None = None
    spearman_vs_rest: AgreementVsRest | None = None
    icc: ICC | None = None  # interval fields only
    not_applicable: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def field_agreement(
    frame: pd.DataFrame,
    *,
    level: str,
    order: Sequence | None = None,
    iterations: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_shared: int = 2,
    min_shared_ratings: int = 3,
) -> FieldAgreement:
    """The agreement figures of one field. `order` ranks ordinal values that do not sort by
    themselves; `iterations`, `seed` and `confidence` set the bootstrap of alpha; `min_shared` is
    the fewest shared items for a pairwise kappa, `min_shared_ratings` for a pairwise Spearman."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
    labels = clean_labels(frame, sets=level == "set")
    counts = {
        "n_items": labels["item"].nunique(),
        "n_annotators": labels["annotator"].nunique(),
        "n_labels": len(labels),
    }
    bootstrap: Bootstrap = {"iterations": iterations, "seed": seed, "confidence": confidence}
    if level == "set":
        return FieldAgreement(
            level=level,
            observed=observed_agreement(labels),
            alpha=masi_alpha(labels, **bootstrap),
            not_applicable=MappingProxyType(
                {"cohen": SET_KAPPA, "fleiss": SET_KAPPA, "per_annotator": SET_KAPPA, "spearman": NOT_RATINGS}
            ),
            **counts,
        )
    per_annotator = agreement_with_majority(labels)
    alpha = krippendorff_alpha(labels, level=level, order=order, **bootstrap)
    if level == "interval":
        ratings = _ratings(labels, per_annotator, min_shared_ratings)
        return FieldAgreement(
            level=level,
            observed=observed_agreement(labels),
            alpha=alpha,
            per_annotator=ratings.pop("per_annotator"),
            icc=icc_oneway(ratings.pop("numeric")),
            not_applicable=MappingProxyType({"cohen": INTERVAL_KAPPA, "fleiss": INTERVAL_KAPPA}),
            **ratings,
            **counts,
        )
    return FieldAgreement(
        level=level,
        observed=observed_agreement(labels),
        alpha=alpha,
        cohen=cohen_kappa_pairs(labels, min_shared=min_shared),
        fleiss=fleiss_kappa(labels),
        per_annotator=per_annotator,
        not_applicable=MappingProxyType({"spearman": NOT_RATINGS}),
        **counts,
    )


def _ratings(labels: pd.DataFrame, per_annotator: pd.DataFrame, min_shared: int) -> dict:
    """The SimLex/CoSimLex figures of `ratings.py` for an interval field, and each annotator's
    Spearman against the rest added to the per-annotator table."""
    columns = {"annotator": "annotator", "item": "item", "rating": "value"}
    numeric = labels.assign(value=pd.to_numeric(labels["value"]))
    pairwise = pairwise_spearman(numeric, min_shared=min_shared, **columns)
    vs_rest = agreement_vs_rest(numeric, min_shared=min_shared, **columns)
    table = per_annotator.assign(spearman_vs_rest=vs_rest.per_annotator.reindex(per_annotator.index))
    return {"spearman": pairwise, "spearman_vs_rest": vs_rest, "per_annotator": table, "numeric": numeric}
