"""CoSimLex (SemEval-2020 Task 3) selection of ratings and per-item/per-pair statistics.

Input: one row per response with columns response_id, annotator_id, item_id, external_id,
completed (bool), pair (ties the two contexts of one word pair), context (1 or 2),
inspired_word_1, inspired_word_2 (page 1), rating (page 2: 0..6, or None/NaN).

The paper's post-processing (§4.3) is SimLex-999's adapted: calibration first, then the exclusion
rules on calibrated ratings, each judged on the whole calibrated panel, an annotator being dropped
if any applies (low pairwise agreement; optionally leave-one-out; the page-1 engagement check).
Ratings are then put on the released 0-10 scale (×10/6).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from scipy.stats import mannwhitneyu

from .engagement import check_engagement
from .ratings import agreement_vs_rest, calibrate, exclude_low_agreement, pairwise_spearman
from .ratings import leave_one_out as leave_one_out_rule

ITEM_DIAGNOSTIC_COLUMNS = (
    "n_annotations",
    "n_kept",
    "mean",
    "stdev",
    "sim_context1",
    "sim_context2",
    "stdev_context1",
    "stdev_context2",
    "change",
    "pvalue",
    "pvalue_release",
)
SCALE = 10 / 6  # 0-6 as collected -> 0-10 as released (SimLex-999's linear map)
RATING_RANGE = (0, 6)

REASON_INCOMPLETE = "incomplete: not every page was answered"
REASON_NO_RATING = "no similarity rating on page 2"


@dataclass(frozen=True)
class Selection:
    responses: pd.DataFrame  # index response_id: keep, reasons, rating_calibrated, rating_scaled
    annotators: pd.DataFrame  # index annotator_id: see ANNOTATOR_COLUMNS
    items: pd.DataFrame  # index item_id: ITEM_DIAGNOSTIC_COLUMNS
    summary: dict[str, Any] = field(default_factory=dict)


ANNOTATOR_COLUMNS = (
    "n_responses",
    "consistency_mean",
    "calibration_shift",
    "mean_pairwise_spearman",
    "loo_gain",
    "engagement_flagged_share",
    "spearman_vs_rest",
    "keep",
    "reasons",
)


def select_ratings(
    frame: pd.DataFrame,
    *,
    consistency_items: Sequence[str] = (),
    calibration_threshold: float = 1.0,
    exclusion_sd: float = 1.0,
    leave_one_out: bool = False,
    leave_one_out_share: float = 0.1,
    min_shared_items: int = 3,
    engagement_max_flagged_share: float = 0.5,
    engagement_repeat_share: float = 0.5,
) -> Selection:
    """Calibrate on the consistency items (external ids), then drop annotators by the exclusion
    rules; every dropped response and annotator carries its reasons in words. Consistency items
    stay in the item statistics like any other item. Responses the engagement check flags stay
    when their annotator is kept: the check judges annotators (see engagement_flagged_share)."""
    frame = frame.set_index("response_id", drop=False)
    completed = frame["completed"].fillna(False).astype(bool)
    rating = pd.to_numeric(frame["rating"], errors="coerce")
    usable = completed & rating.between(*RATING_RANGE)
    rated = frame[usable].assign(rating=rating[usable].astype(float))
    mask = rated["external_id"].astype(str).isin([str(x) for x in consistency_items])
    calibration = calibrate(rated, consistency_mask=mask, threshold=calibration_threshold, low=0, high=6)
    calibrated = rated.assign(rating=calibration.ratings)
    engagement = check_engagement(
        frame[completed], repeat_share=engagement_repeat_share, max_flagged_share=engagement_max_flagged_share
    )
    annotators = _judge_annotators(
        frame,
        calibrated,
        calibration.annotators,
        engagement.annotators,
        exclusion_sd=exclusion_sd,
        leave_one_out_share=leave_one_out_share if leave_one_out else None,
        min_shared=min_shared_items,
    )
    responses = _responses(frame, completed, usable, calibration.ratings, annotators)
    items = item_statistics(frame, responses=responses)
    summary = _summary(frame, responses, annotators, items, calibrated, min_shared=min_shared_items)
    return Selection(responses=responses, annotators=annotators, items=items, summary=summary)


def _judge_annotators(
    frame: pd.DataFrame,
    calibrated: pd.DataFrame,
    calibration: pd.DataFrame,
    engagement: pd.DataFrame,
    *,
    exclusion_sd: float,
    leave_one_out_share: float | None,
    min_shared: int,
) -> pd.DataFrame:
    """The exclusion rules on the calibrated panel, each judged on the whole panel; the page-1
    check's verdict comes in with `engagement`. Leave-one-out runs only with a share."""
    pairwise = pairwise_spearman(calibrated, min_shared=min_shared)
    rules = [exclude_low_agreement(pairwise.per_annotator, sd=exclusion_sd)]
    if leave_one_out_share is not None:
        rules.append(leave_one_out_rule(calibrated, share=leave_one_out_share, min_shared=min_shared))
    index = pd.Index(frame["annotator_id"].unique(), name="annotator_id")
    annotators = pd.DataFrame(index=index)
    annotators["n_responses"] = frame.groupby("annotator_id").size().reindex(index).astype(int)
    annotators["consistency_mean"] = calibration["consistency_mean"].reindex(index)
    annotators["calibration_shift"] = calibration["shift"].reindex(index).fillna(0).astype(int)
    annotators["mean_pairwise_spearman"] = pairwise.per_annotator.reindex(index)
    annotators["loo_gain"] = rules[1].values.reindex(index) if len(rules) > 1 else math.nan
    annotators["engagement_flagged_share"] = engagement["flagged_share"].reindex(index)
    annotators["spearman_vs_rest"] = agreement_vs_rest(calibrated, min_shared=min_shared).per_annotator.reindex(index)
    annotators["reasons"] = _annotator_reasons(index, rules, engagement["reasons"])
    annotators["keep"] = [not r for r in annotators["reasons"]]
    return annotators[list(ANNOTATOR_COLUMNS)]


def _annotator_reasons(index: pd.Index, rules: list, engagement_reasons: pd.Series) -> list[list[str]]:
    reasons: list[list[str]] = []
    for who in index:
        mine = [rule.reasons[who] for rule in rules if bool(rule.flagged.get(who, False))]
        reasons.append(mine + list(engagement_reasons.get(who, [])))
    return reasons


def _responses(
    frame: pd.DataFrame, completed: pd.Series, usable: pd.Series, calibrated: pd.Series, annotators: pd.DataFrame
) -> pd.DataFrame:
    reasons: list[list[str]] = []
    for done, ok, who in zip(completed, usable, frame["annotator_id"]):
        if not done:
            reasons.append([REASON_INCOMPLETE])
        elif not ok:
            reasons.append([REASON_NO_RATING])
        else:
            reasons.append([f"annotator dropped: {r}" for r in annotators.at[who, "reasons"]])
    rating_calibrated = calibrated.reindex(frame.index).astype(float)
    return pd.DataFrame(
        {
            "keep": [not r for r in reasons],
            "reasons": reasons,
            "rating_calibrated": rating_calibrated,
            "rating_scaled": rating_calibrated * SCALE,
        },
        index=frame.index,
    )


def item_statistics(frame: pd.DataFrame, *, responses: pd.DataFrame) -> pd.DataFrame:
    """Per item, over its kept ratings on the 0-10 scale: how many, mean and standard deviation;
    and per pair (repeated on both of its items) the released columns: each context's mean and
    standard deviation, change = sim_context2 - sim_context1, and the Mann-Whitney p between the
    two contexts' ratings. Standard deviations are sample ones (ddof=1): a released stdev is
    reproducible from whole-number ratings with ddof=1 for every context of the sample files, and
    with ddof=0 for few (tests/quality/test_cosimlex_stats.py). `pvalue` is two-sided;
    `pvalue_release` is the convention of the released files (see release_pvalue)."""
    frame = frame.set_index("response_id", drop=False)
    scaled = responses["rating_scaled"].reindex(frame.index)
    kept = responses["keep"].reindex(frame.index).fillna(False).astype(bool) & scaled.notna()
    items = pd.Index(frame["item_id"].unique(), name="item_id")
    by_item = scaled[kept].groupby(frame.loc[kept, "item_id"])
    result = pd.DataFrame(index=items)
    result["n_annotations"] = scaled.notna().groupby(frame["item_id"]).sum().reindex(items).fillna(0).astype(int)
    result["n_kept"] = by_item.size().reindex(items).fillna(0).astype(int)
    result["mean"] = by_item.mean().reindex(items)
    result["stdev"] = by_item.std(ddof=1).reindex(items)
    pairs = _pair_table(frame, scaled, kept)
    item_pair = frame.drop_duplicates("item_id").set_index("item_id")["pair"].reindex(items)
    result = result.join(pairs.reindex(item_pair.to_numpy()).set_axis(items))
    return result[list(ITEM_DIAGNOSTIC_COLUMNS)]


def _pair_table(frame: pd.DataFrame, scaled: pd.Series, kept: pd.Series) -> pd.DataFrame:
    rows = frame.loc[kept, ["pair", "context"]].assign(value=scaled[kept])
    rows["context"] = pd.to_numeric(rows["context"], errors="coerce")
    table = {
        pair_id: pair_statistics(mine.loc[mine["context"] == 1, "value"], mine.loc[mine["context"] == 2, "value"])
        for pair_id, mine in rows.dropna(subset=["pair"]).groupby("pair", sort=False)
    }
    columns = [c for c in ITEM_DIAGNOSTIC_COLUMNS if c.startswith(("sim_", "stdev_", "change", "pvalue"))]
    pairs = pd.DataFrame.from_dict(table, orient="index", columns=columns)
    # a pair with no kept rating at all still gets a row (of NaN): a side with none has no figures
    return pairs.reindex(pd.Index(frame["pair"].dropna().unique()))


def pair_statistics(context1: pd.Series, context2: pd.Series) -> dict[str, float]:
    """The released per-pair figures from the two contexts' ratings (0-10 scale)."""
    one, two = pd.Series(context1, dtype=float).dropna(), pd.Series(context2, dtype=float).dropna()
    both = len(one) > 0 and len(two) > 0
    sim1 = float(one.mean()) if len(one) else math.nan
    sim2 = float(two.mean()) if len(two) else math.nan
    return {
        "sim_context1": sim1,
        "sim_context2": sim2,
        "stdev_context1": float(one.std(ddof=1)) if len(one) > 1 else math.nan,
        "stdev_context2": float(two.std(ddof=1)) if len(two) > 1 else math.nan,
        "change": sim2 - sim1,
        "pvalue": float(mannwhitneyu(one, two, alternative="two-sided").pvalue) if both else math.nan,
        "pvalue_release": release_pvalue(one, two) if both else math.nan,
    }


def release_pvalue(context1: Sequence[float], context2: Sequence[float]) -> float:
    """The p-value convention of the released files: one-sided, in the direction the data lean,
    normal approximation with continuity correction — what scipy's mannwhitneyu returned by default
    before scipy 1.7 (alternative=None). No released p exceeds 0.5, and this reproduces released
    values from ratings the release pins down (tests). Equal to half the asymptotic two-sided p.
    When every rating on both sides is the same, scipy gives 1.0 (old scipy raised an error)."""
    less = mannwhitneyu(context1, context2, alternative="less", method="asymptotic").pvalue
    greater = mannwhitneyu(context1, context2, alternative="greater", method="asymptotic").pvalue
    return float(min(less, greater))


def dataset_summary(pairs: pd.DataFrame) -> dict[str, float | int]:
    """Table 1 of the CoSimLex paper for one language, from one row per pair with columns sim1,
    sim2, stdev1, stdev2 (0-10 scale) and pvalue: pairs, mean similarity over both contexts, mean
    standard deviation, mean |sim2 - sim1|, and the shares (fractions) of pairs with p below 0.1
    and 0.05. Each figure is over the rows where its inputs are known."""
    number = {c: pd.to_numeric(pairs[c], errors="coerce") for c in ("sim1", "sim2", "stdev1", "stdev2", "pvalue")}
    sim1, sim2 = number["sim1"], number["sim2"]
    stdevs = pd.concat([number["stdev1"], number["stdev2"]])
    pvalue = number["pvalue"].dropna()
    return {
        "n_pairs": int(len(pairs)),
        "mean_similarity": _mean(pd.concat([sim1, sim2])),
        "mean_stdev": _mean(stdevs),
        "mean_abs_change": _mean((sim2 - sim1).abs()),
        "share_p_below_0_1": _mean((pvalue < 0.1).astype(float)),
        "share_p_below_0_05": _mean((pvalue < 0.05).astype(float)),
    }


def _summary(
    frame: pd.DataFrame,
    responses: pd.DataFrame,
    annotators: pd.DataFrame,
    items: pd.DataFrame,
    calibrated: pd.DataFrame,
    *,
    min_shared: int,
) -> dict[str, Any]:
    """Counts, annotations per entry before and after, agreement of the kept data (each annotator
    against the rest), and Table 1 of the kept data over the pairs with both contexts rated; its
    p shares use pvalue_release, as the paper's do."""
    kept_ids = responses.index[responses["keep"]]
    kept_ratings = calibrated[calibrated.index.isin(kept_ids)]
    pairs = items.assign(pair=frame.drop_duplicates("item_id").set_index("item_id")["pair"].reindex(items.index))
    pairs = pairs.dropna(subset=["pair", "sim_context1", "sim_context2"]).drop_duplicates("pair")
    table1 = dataset_summary(
        pairs.rename(
            columns={
                "sim_context1": "sim1",
                "sim_context2": "sim2",
                "stdev_context1": "stdev1",
                "stdev_context2": "stdev2",
            }
        ).assign(pvalue=pairs["pvalue_release"])
    )
    agreement = agreement_vs_rest(kept_ratings, min_shared=min_shared).mean if len(kept_ratings) else math.nan
    return {
        "responses": int(len(responses)),
        "responses_kept": int(responses["keep"].sum()),
        "annotators": int(len(annotators)),
        "annotators_kept": int(annotators["keep"].sum()),
        "annotations_per_entry_before": _mean(items["n_annotations"]),
        "annotations_per_entry_after": _mean(items["n_kept"]),
        "agreement_spearman": agreement,
        **table1,
    }


def _mean(values: pd.Series) -> float:
    known = pd.Series(values, dtype=float).dropna()
    return float(known.mean()) if len(known) else math.nan
