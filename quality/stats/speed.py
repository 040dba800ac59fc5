"""Answers given too fast to have been read: flagged by an absolute floor or by a share of the
median time the annotators took, and annotators judged by the share of their answers flagged.

Input: one row per response with columns response_id, annotator_id, item_id, completed and
seconds (None or NaN: the time is unknown, and such an answer is never flagged).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: an item's own median is used once this many annotators' times are known; below, the median of
#: every completed answer (two people's times make a poor median of their own)
MIN_TIMED_PER_ITEM = 3


def median_thresholds(frame: pd.DataFrame, *, median_share: float) -> pd.Series:
    """Per response: `median_share` times the median seconds of its item's completed answers (or
    of all completed answers while the item has fewer than MIN_TIMED_PER_ITEM times)."""
    completed = frame["completed"].fillna(False).astype(bool)
    seconds = pd.to_numeric(frame["seconds"], errors="coerce").where(completed)
    overall = float(seconds.median()) if seconds.notna().any() else np.nan
    per_item = seconds.groupby(frame["item_id"]).agg(["median", "count"])
    item_median = frame["item_id"].map(per_item["median"])
    enough = frame["item_id"].map(per_item["count"]) >= MIN_TIMED_PER_ITEM
    return median_share * item_median.where(enough, overall)


def flag_too_fast(
    frame: pd.DataFrame, *, min_seconds: float | None = None, median_share: float | None = None
) -> pd.DataFrame:
    """Per response (index response_id): `seconds`, the `threshold` it is held to (the higher of
    `min_seconds` and `median_share` of the median; NaN when neither rule is on) and `too_fast`
    (completed, timed, and below the threshold)."""
    seconds = pd.to_numeric(frame["seconds"], errors="coerce")
    floors = [pd.Series(np.nan, index=frame.index)]
    if min_seconds is not None:
        floors.append(pd.Series(float(min_seconds), index=frame.index))
    if median_share is not None:
        floors.append(median_thresholds(frame, median_share=float(median_share)))
    threshold = pd.concat(floors, axis=1).max(axis=1, skipna=True)
    completed = frame["completed"].fillna(False).astype(bool)
    too_fast = completed & seconds.notna() & threshold.notna() & (seconds < threshold)
    return pd.DataFrame(
        {"seconds": seconds.to_numpy(), "threshold": threshold.to_numpy(), "too_fast": too_fast.to_numpy()},
        index=pd.Index(frame["response_id"].to_numpy(), name="response_id"),
    )


def too_fast_shares(frame: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """Per annotator (index annotator_id): timed completed answers, how many were too fast, and
    the share (NaN with none timed)."""
    completed = frame["completed"].fillna(False).astype(bool).to_numpy()
    timed = completed & flags["seconds"].notna().to_numpy()
    table = pd.DataFrame(
        {"annotator_id": frame["annotator_id"].to_numpy(), "timed": timed, "fast": flags["too_fast"].to_numpy()}
    )
    counts = table.groupby("annotator_id")[["timed", "fast"]].sum().astype(int)
    counts["share"] = counts["fast"] / counts["timed"].where(counts["timed"] > 0)
    return counts
