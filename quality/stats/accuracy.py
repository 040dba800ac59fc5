"""Per-annotator accuracy against an answer key."""

from __future__ import annotations

import pandas as pd


def annotator_accuracy(
    frame: pd.DataFrame, *, annotator: str = "annotator_id", correct: str = "correct"
) -> pd.DataFrame:
    """Mean of `correct` per annotator over the rows where it is known (NaN where none is).

    Returns columns `n_gold` (rows with a known answer) and `accuracy`.
    """
    known = frame[frame[correct].notna()]
    scored = known.assign(_hit=known[correct].astype(bool).astype(float))
    grouped = scored.groupby(annotator)["_hit"].agg(n_gold="count", accuracy="mean")
    all_ids = pd.Index(frame[annotator].unique(), name=annotator)
    result = grouped.reindex(all_ids)
    result["n_gold"] = result["n_gold"].fillna(0).astype(int)
    return result
