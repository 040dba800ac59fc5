"""Rating-panel statistics after SimLex-999 (Hill, Reichart & Korhonen 2015, §3): calibration,
pairwise and leave-one-out agreement, agreement of each annotator with the rest.

Input everywhere: a long frame, one row per rating, with an annotator column, an item column and a
numeric rating column (names are keyword arguments). A second rating by the same annotator of the
same item is averaged with the first, so each annotator has one rating per item.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr


@dataclass(frozen=True)
class Calibration:
    ratings: pd.Series  # calibrated ratings, same index as the input frame (float; NaN stays NaN)
    annotators: pd.DataFrame  # index annotator: n_consistency, consistency_mean, shift (-1/0/+1)
    population_mean: float  # mean of the annotators' consistency means


@dataclass(frozen=True)
class PairwiseAgreement:
    pairs: pd.DataFrame  # annotator_a, annotator_b, n_shared, spearman (NaN when not computable)
    per_annotator: pd.Series  # mean of the annotator's computable pairwise correlations
    mean: float  # mean over all computable pairs: the SimLex agreement figure


@dataclass(frozen=True)
class Flags:
    """Which annotators a rule drops and why, in words."""

    values: pd.Series  # the statistic the rule judges, index annotator
    flagged: pd.Series  # bool, index annotator
    reasons: pd.Series  # str for flagged annotators, None otherwise
    threshold: float  # the cutoff the rule used (NaN when it judged nobody)


@dataclass(frozen=True)
class AgreementVsRest:
    per_annotator: pd.Series  # Spearman of the annotator's ratings with the mean of the others'
    mean: float  # mean over annotators: the CoSimLex agreement (human upper bound)


def _panel(frame: pd.DataFrame, annotator: str, item: str, rating: str) -> pd.DataFrame:
    """Items × annotators matrix of ratings (NaN where an annotator did not rate an item)."""
    known = frame[frame[rating].notna()]
    panel = known.groupby([item, annotator])[rating].mean().unstack(annotator)
    return panel.reindex(columns=pd.Index(frame[annotator].unique(), name=annotator))


def calibrate(
    frame: pd.DataFrame,
    *,
    consistency_mask: pd.Series | np.ndarray,
    threshold: float = 1.0,
    low: float = 0,
    high: float = 6,
    annotator: str = "annotator_id",
    rating: str = "rating",
) -> Calibration:
    """SimLex-999 §3.6: raters whose mean on the consistency set differs from the population mean
    by more than `threshold` are biased as a whole, so every rating of theirs moves one step
    toward the population (+1 for low raters except ratings already at `high`; -1 for high raters
    except ratings already at `low`). The population mean is the mean of the raters' means, so a
    rater with many consistency ratings weighs no more than one with few. Raters with no rating
    on the consistency set cannot be judged and are not shifted."""
    mask = pd.Series(np.asarray(consistency_mask, dtype=bool), index=frame.index)
    values = frame[rating].astype(float)
    on_set = frame[mask & values.notna()]
    grouped = on_set.groupby(annotator)[rating]
    annotators = pd.DataFrame(index=pd.Index(frame[annotator].unique(), name=annotator))
    annotators["n_consistency"] = grouped.size().reindex(annotators.index).fillna(0).astype(int)
    annotators["consistency_mean"] = grouped.mean().astype(float).reindex(annotators.index)
    population = float(annotators["consistency_mean"].mean())
    offset = annotators["consistency_mean"] - population
    shift = np.where(offset < -threshold, 1, np.where(offset > threshold, -1, 0))
    annotators["shift"] = pd.Series(shift, index=annotators.index).astype(int)
    per_row = frame[annotator].map(annotators["shift"]).fillna(0).to_numpy()
    stays = ((per_row > 0) & (values >= high)) | ((per_row < 0) & (values <= low))
    calibrated = values + np.where(stays, 0, per_row)
    return Calibration(ratings=calibrated, annotators=annotators, population_mean=population)


def pairwise_spearman(
    frame: pd.DataFrame,
    *,
    min_shared: int = 3,
    annotator: str = "annotator_id",
    item: str = "item_id",
    rating: str = "rating",
) -> PairwiseAgreement:
    """Spearman's rho of every pair of annotators over the items both rated (ranked within those
    items), when they share at least `min_shared`. A pair whose ratings are constant on the shared
    items has no correlation (NaN) and counts for nothing, rather than as zero agreement."""
    panel = _panel(frame, annotator, item, rating)
    rho = panel.corr(method="spearman", min_periods=max(min_shared, 2))
    rated = panel.notna().to_numpy(dtype=int)
    shared = rated.T @ rated
    upper = np.triu(np.ones(rho.shape, dtype=bool), k=1)
    a_idx, b_idx = np.nonzero(upper)
    ids = panel.columns.to_numpy()
    pairs = pd.DataFrame(
        {
            "annotator_a": ids[a_idx],
            "annotator_b": ids[b_idx],
            "n_shared": shared[a_idx, b_idx].astype(int),
            "spearman": rho.to_numpy()[a_idx, b_idx],
        }
    )
    pairs.loc[pairs["n_shared"] < min_shared, "spearman"] = np.nan
    valid = pairs.dropna(subset=["spearman"])
    both_ways = pd.concat([valid.rename(columns={"annotator_a": "who"}), valid.rename(columns={"annotator_b": "who"})])
    per_annotator = both_ways.groupby("who")["spearman"].mean().reindex(panel.columns)
    per_annotator.index.name = annotator
    mean = float(valid["spearman"].mean()) if len(valid) else math.nan
    return PairwiseAgreement(pairs=pairs, per_annotator=per_annotator.rename("mean_pairwise_spearman"), mean=mean)


def exclude_low_agreement(averages: pd.Series, *, sd: float = 1.0) -> Flags:
    """SimLex-999 exclusion rule 1: drop an annotator whose average pairwise Spearman is more than
    `sd` standard deviations below the mean of all annotators' averages. The spread is the sample
    standard deviation (ddof=1) of the averages; annotators without an average (too few shared
    items) are not judged."""
    known = averages.dropna()
    centre = float(known.mean()) if len(known) else math.nan
    spread = float(known.std(ddof=1)) if len(known) > 1 else math.nan
    cutoff = centre - sd * spread if not math.isnan(spread) else math.nan
    flagged = (averages < cutoff) if not math.isnan(cutoff) else pd.Series(False, index=averages.index)
    reasons = _reasons(
        averages,
        flagged,
        lambda value: (
            f"average pairwise Spearman {value:.2f} is more than {sd:g} SD below the panel mean "
            f"{centre:.2f} (cutoff {cutoff:.2f})"
        ),
    )
    return Flags(values=averages, flagged=flagged, reasons=reasons, threshold=cutoff)


def _reasons(values: pd.Series, flagged: pd.Series, text) -> pd.Series:
    """A reason (text(value)) where flagged, None elsewhere, on the values' index."""
    return pd.Series(
        [text(value) if bad else None for value, bad in zip(values, flagged)], index=values.index, dtype=object
    )


def leave_one_out(
    frame: pd.DataFrame,
    *,
    share: float = 0.1,
    min_shared: int = 3,
    annotator: str = "annotator_id",
    item: str = "item_id",
    rating: str = "rating",
) -> Flags:
    """SimLex-999 exclusion rule 2: agreement (mean pairwise Spearman over all computable pairs)
    without the annotator minus agreement with everyone. The annotators whose removal raises it
    most are flagged: the top ceil(`share` × annotators with a gain), and only where the gain is
    above zero (ties broken by annotator id, for a stable answer)."""
    agreement = pairwise_spearman(frame, min_shared=min_shared, annotator=annotator, item=item, rating=rating)
    valid = agreement.pairs.dropna(subset=["spearman"])
    total, count = valid["spearman"].sum(), len(valid)
    ids = agreement.per_annotator.index
    by_a, by_b = valid.groupby("annotator_a")["spearman"], valid.groupby("annotator_b")["spearman"]
    mine_sum = pd.concat([by_a.sum(), by_b.sum()])
    mine_count = pd.concat([by_a.size(), by_b.size()])
    mine_sum = mine_sum.groupby(level=0).sum().reindex(ids).fillna(0.0)
    mine_count = mine_count.groupby(level=0).sum().reindex(ids).fillna(0)
    remaining = count - mine_count
    without = (total - mine_sum) / remaining.where(remaining > 0)
    gain = (without - agreement.mean).where(mine_count > 0).rename("loo_gain")
    known = gain.dropna()
    n_top = math.ceil(share * len(known)) if len(known) else 0
    order = sorted(known.index, key=lambda who: (-known[who], str(who)))
    top = [who for who in order[:n_top] if known[who] > 0]
    flagged = pd.Series(gain.index.isin(top), index=gain.index)
    threshold = float(min(known[who] for who in top)) if top else math.nan
    reasons = _reasons(
        gain,
        flagged,
        lambda value: (
            f"leaving this annotator out raises mean pairwise Spearman by {value:.3f} "
            f"(among the top {share:.0%} of annotators by that rise)"
        ),
    )
    return Flags(values=gain, flagged=flagged, reasons=reasons, threshold=threshold)


def agreement_vs_rest(
    frame: pd.DataFrame,
    *,
    min_shared: int = 3,
    annotator: str = "annotator_id",
    item: str = "item_id",
    rating: str = "rating",
) -> AgreementVsRest:
    """CoSimLex's agreement figure (Table 1 rho, Table 3 upper bound): each annotator's ratings
    against the mean of the other annotators' ratings on the same items, over the items at least
    one other annotator rated; NaN with fewer than `min_shared` such items or constant ratings.
    The overall figure is the mean over annotators."""
    panel = _panel(frame, annotator, item, rating)
    sums, counts = panel.sum(axis=1), panel.notna().sum(axis=1)
    per_annotator = {}
    for who in panel.columns:
        mine = panel[who]
        rest_count = counts - mine.notna()
        rest = (sums - mine.fillna(0.0)) / rest_count.where(rest_count > 0)
        usable = mine.notna() & rest.notna()
        per_annotator[who] = _spearman(mine[usable], rest[usable]) if usable.sum() >= min_shared else math.nan
    result = pd.Series(per_annotator, index=panel.columns, dtype=float, name="spearman_vs_rest")
    return AgreementVsRest(per_annotator=result, mean=float(result.mean()) if result.notna().any() else math.nan)


def _spearman(x: pd.Series, y: pd.Series) -> float:
    if x.nunique() < 2 or y.nunique() < 2:
        return math.nan
    return float(spearmanr(x.to_numpy(), y.to_numpy()).statistic)
