"""Answers given too fast to have been read: flagged by an absolute floor or by a share of the
median time the annotators took, and annotators judged by the share of their answers flagged.

Input: one row per response with columns response_id, annotator_id, item_id, completed and
seconds (None or NaN: the time is unknown, and such an answer is never flagged), and optionally
`untimed` (True: a page of it was saved without a valid note of when it was shown, a suspect: it
is flagged by any rule that is on, whatever its seconds); per page, one row per timed page of a
response (response_id, page, seconds, optionally untimed), judged the same way page by page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

#: an item's own median is used once this many annotators' times are known; below, the median of
#: every completed answer (two people's times make a poor median of their own)
MIN_TIMED_PER_ITEM = 3


def median_thresholds(frame: pd.DataFrame, *, median_share: float) -> pd.Series:
    """Per response: `median_share` times the median seconds of its item's completed answers (or
    of all completed answers while the item has fewer than MIN_TIMED_PER_ITEM times)."""
    completed = frame["completed"].fillna(False).astype(bool) & ~_untimed(frame)
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
    `min_seconds` and `median_share` of the median; NaN when neither rule is on), `untimed` and
    `too_fast` (completed, and below the threshold or untimed with a threshold)."""
    seconds = pd.to_numeric(frame["seconds"], errors="coerce")
    floors = [pd.Series(np.nan, index=frame.index)]
    if min_seconds is not None:
        floors.append(pd.Series(float(min_seconds), index=frame.index))
    if median_share is not None:
        floors.append(median_thresholds(frame, median_share=float(median_share)))
    threshold = pd.concat(floors, axis=1).max(axis=1, skipna=True)
    completed = frame["completed"].fillna(False).astype(bool)
    untimed = _untimed(frame)
    too_fast = completed & threshold.notna() & (untimed | (seconds.notna() & (seconds < threshold)))
    return pd.DataFrame(
        {
            "seconds": seconds.where(~untimed).to_numpy(),
            "threshold": threshold.to_numpy(),
            "untimed": untimed.to_numpy(),
            "too_fast": too_fast.to_numpy(),
        },
        index=pd.Index(frame["response_id"].to_numpy(), name="response_id"),
    )


def too_fast_shares(frame: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """Per annotator (index annotator_id): timed completed answers (the untimed suspects among
    them: judged too), how many were too fast, the share (NaN with none timed) and the median
    seconds of the answers with a time."""
    completed = frame["completed"].fillna(False).astype(bool).to_numpy()
    known = completed & flags["seconds"].notna().to_numpy()
    untimed = flags["untimed"].to_numpy() if "untimed" in flags else np.zeros(len(flags), dtype=bool)
    table = pd.DataFrame(
        {
            "annotator_id": frame["annotator_id"].to_numpy(),
            "timed": known | (completed & untimed),
            "fast": flags["too_fast"].to_numpy(),
            "seconds": flags["seconds"].where(known).to_numpy(),
        }
    )
    grouped = table.groupby("annotator_id")
    counts = grouped[["timed", "fast"]].sum().astype(int)
    counts["share"] = counts["fast"] / counts["timed"].where(counts["timed"] > 0)
    counts["median_seconds"] = grouped["seconds"].median()
    return counts


# --- per page ------------------------------------------------------------------------------------
#: a page floor: one number for every page, or {page slug: seconds} for the pages named (only those
#: pages are checked then)
PageFloor = float | Mapping[str, float]


def page_median_thresholds(pages: pd.DataFrame, *, median_share: float) -> pd.Series:
    """Per page row: `median_share` times the median seconds of that page of the item over its
    completed answers (or of that page over every item while the item has fewer than
    MIN_TIMED_PER_ITEM times of it), as the answer's rule does per item."""
    completed = pages["completed"].fillna(False).astype(bool) & ~_untimed(pages)
    seconds = pd.to_numeric(pages["seconds"], errors="coerce").where(completed)
    page_median = seconds.groupby(pages["page"]).transform("median")
    by_item = seconds.groupby([pages["item_id"], pages["page"]])
    enough = by_item.transform("count") >= MIN_TIMED_PER_ITEM
    return median_share * by_item.transform("median").where(enough, page_median)


def flag_too_fast_pages(
    frame: pd.DataFrame, pages: pd.DataFrame, *, min_seconds: PageFloor | None = None, median_share: float | None = None
) -> pd.DataFrame:
    """One row per page of each response of `frame` (`pages`: response_id, page, seconds and
    optionally untimed; rows of other responses are left out): response_id, page, seconds, the
    `threshold` (the higher of the page's floor and `median_share` of its median; NaN on a page not
    checked), `untimed` and `too_fast` (completed, and below the threshold or untimed with one).
    With a mapping, only the pages it names are checked, by the median share too."""
    known = frame[["response_id", "item_id", "completed"]]
    columns = ["response_id", "page", "seconds", *(["untimed"] if "untimed" in pages else [])]
    rows = pages[columns].merge(known, on="response_id", how="inner")
    rows = rows.reset_index(drop=True)
    seconds = pd.to_numeric(rows["seconds"], errors="coerce")
    if isinstance(min_seconds, Mapping):
        floor = rows["page"].map({str(k): float(v) for k, v in min_seconds.items()}).astype(float)
        checked = rows["page"].isin([str(k) for k in min_seconds])
    else:
        floor = pd.Series(np.nan if min_seconds is None else float(min_seconds), index=rows.index)
        checked = pd.Series(True, index=rows.index)
    floors = [floor]
    if median_share is not None:
        floors.append(page_median_thresholds(rows, median_share=float(median_share)).where(checked))
    threshold = pd.concat(floors, axis=1).max(axis=1, skipna=True)
    completed = rows["completed"].fillna(False).astype(bool)
    untimed = _untimed(rows)
    too_fast = completed & threshold.notna() & (untimed | (seconds.notna() & (seconds < threshold)))
    return pd.DataFrame(
        {
            "response_id": rows["response_id"],
            "page": rows["page"],
            "seconds": seconds.where(~untimed),
            "threshold": threshold,
            "untimed": untimed,
            "too_fast": too_fast,
        }
    )


def flagged_pages(page_flags: pd.DataFrame) -> pd.Series:
    """Per response with a page too fast (index response_id): {page: {seconds, threshold}} of
    those pages, in the order they were given (seconds None and `untimed` True on an untimed page)."""
    fast = page_flags[page_flags["too_fast"]]
    found: dict[object, dict[str, dict[str, Any]]] = {}
    for rid, page, seconds, threshold, untimed in zip(
        fast["response_id"], fast["page"], fast["seconds"], fast["threshold"], fast["untimed"]
    ):
        times: dict[str, Any] = {
            "seconds": None if untimed else float(seconds),
            "threshold": round(float(threshold), 3),
        }
        if untimed:
            times["untimed"] = True
        found.setdefault(rid, {})[str(page)] = times
    return pd.Series(found, dtype=object, name="pages").rename_axis("response_id")


def _untimed(table: pd.DataFrame) -> pd.Series:
    """The table's `untimed` column as booleans (all False without one)."""
    if "untimed" not in table:
        return pd.Series(False, index=table.index)
    return table["untimed"].fillna(False).astype(bool)
