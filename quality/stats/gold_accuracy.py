"""Quality rules any described task can use: completeness and accuracy on gold questions per
annotator (the too-fast rule is every kind's: quality/stats/speed.py).

Input: one row per response with columns response_id, annotator_id, item_id, completed,
seconds (for the median time), and one boolean-or-None column per gold question (`correct_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

REASON_INCOMPLETE = "incomplete: not every page was answered"
ITEM_DIAGNOSTIC_COLUMNS = ("n_annotations", "n_kept", "gold_accuracy", "median_seconds")


@dataclass(frozen=True)
class Selection:
    responses: pd.DataFrame  # index response_id; keep, reasons
    annotators: pd.DataFrame  # index annotator_id; n_responses, n_gold, accuracy, median_seconds, keep, reasons
    items: pd.DataFrame  # index item_id; ITEM_DIAGNOSTIC_COLUMNS
    summary: dict[str, Any] = field(default_factory=dict)


def _correct(frame: pd.DataFrame, columns: list[str]) -> tuple[pd.Series, pd.Series]:
    """Per response: gold questions answered right, and gold questions with a known answer."""
    right = pd.Series(0, index=frame.index, dtype=int)
    known = pd.Series(0, index=frame.index, dtype=int)
    for column in columns:
        values = frame[column]
        is_known = values.notna()
        known += is_known.astype(int)
        right += (is_known & values.where(is_known, False).astype(bool)).astype(int)
    return right, known


def _share(numerator: float, denominator: float) -> float | None:
    return float(numerator / denominator) if denominator else None


def select_annotations(
    frame: pd.DataFrame,
    *,
    correct_columns: list[str],
    min_gold_accuracy: float | None = None,
) -> Selection:
    """Keep a response when it is complete and its annotator's accuracy over the gold questions
    they answered is at least `min_gold_accuracy` (None: off; an annotator with no gold is kept).
    Every drop gets its reason in words."""
    frame = frame.set_index("response_id", drop=False)
    completed = frame["completed"].fillna(False).astype(bool)
    right, known = _correct(frame, correct_columns)
    scored = pd.DataFrame({"annotator_id": frame["annotator_id"], "right": right, "known": known})
    scored = scored[completed]
    per = scored.groupby("annotator_id")[["right", "known"]].sum()
    annotators = pd.DataFrame(index=pd.Index(frame["annotator_id"].unique(), name="annotator_id"))
    annotators["n_responses"] = frame.groupby("annotator_id").size().reindex(annotators.index).fillna(0).astype(int)
    annotators["n_gold"] = per["known"].reindex(annotators.index).fillna(0).astype(int)
    right_total = per["right"].reindex(annotators.index).fillna(0)
    annotators["accuracy"] = [_share(r, n) for r, n in zip(right_total, annotators["n_gold"])]
    seconds = _seconds(frame)
    annotators["median_seconds"] = seconds[completed].groupby(frame["annotator_id"]).median().reindex(annotators.index)
    low = pd.Series(False, index=annotators.index)
    if min_gold_accuracy is not None:
        low = annotators["accuracy"].map(lambda a: a is not None and a < min_gold_accuracy).astype(bool)
    annotators["keep"] = ~low
    annotators["reasons"] = [
        [f"accuracy {a:.1%} on {n} gold answers is below the minimum of {min_gold_accuracy:.0%}"] if is_low else []
        for a, n, is_low in zip(annotators["accuracy"], annotators["n_gold"], low)
    ]
    dropped_annotator = frame["annotator_id"].map(low).fillna(False).astype(bool)
    reasons: list[list[str]] = []
    for position in range(len(frame)):
        mine = []
        if not completed.iat[position]:
            mine.append(REASON_INCOMPLETE)
        if dropped_annotator.iat[position]:
            mine.append("annotator dropped: " + annotators.at[frame["annotator_id"].iat[position], "reasons"][0])
        reasons.append(mine)
    responses = pd.DataFrame({"keep": [not r for r in reasons], "reasons": reasons}, index=frame.index)
    items = _items(frame, responses["keep"] & completed, right, known, seconds)
    summary = {
        "responses": int(len(frame)),
        "responses_kept": int(responses["keep"].sum()),
        "annotators": int(len(annotators)),
        "annotators_kept": int(annotators["keep"].sum()),
        "mean_annotator_accuracy": _mean(annotators["accuracy"]),
        "dropped_incomplete": int((~completed).sum()),
        "dropped_low_accuracy_annotator": int(dropped_annotator.sum()),
    }
    return Selection(responses=responses, annotators=annotators, items=items, summary=summary)


def item_figures(frame: pd.DataFrame, *, correct_columns: list[str], keep: pd.Series) -> pd.DataFrame:
    """Per item, `select_annotations`' figures over the complete responses `keep` (bool per
    response id) marks: what a run finally keeps, the researcher's verdicts included."""
    frame = frame.set_index("response_id", drop=False)
    kept = keep.reindex(frame.index).fillna(False).astype(bool) & frame["completed"].fillna(False).astype(bool)
    right, known = _correct(frame, correct_columns)
    return _items(frame, kept, right, known, _seconds(frame))


def _seconds(frame: pd.DataFrame) -> pd.Series:
    return (
        pd.to_numeric(frame["seconds"], errors="coerce") if "seconds" in frame else pd.Series(np.nan, index=frame.index)
    )


def _items(
    frame: pd.DataFrame, kept: pd.Series, right: pd.Series, known: pd.Series, seconds: pd.Series
) -> pd.DataFrame:
    ids = pd.Index(frame["item_id"].unique(), name="item_id")
    completed = frame["completed"].fillna(False).astype(bool)
    by_item = frame["item_id"]
    result = pd.DataFrame(index=ids)
    result["n_annotations"] = completed.groupby(by_item).sum().reindex(ids).fillna(0).astype(int)
    result["n_kept"] = kept.groupby(by_item).sum().reindex(ids).fillna(0).astype(int)
    kept_right = right[kept].groupby(by_item[kept]).sum().reindex(ids)
    kept_known = known[kept].groupby(by_item[kept]).sum().reindex(ids)
    result["gold_accuracy"] = [_share(r, n) if n == n else None for r, n in zip(kept_right, kept_known)]
    result["median_seconds"] = seconds[kept].groupby(by_item[kept]).median().reindex(ids)
    return result.astype(object).where(result.notna(), None)


def _mean(values: pd.Series) -> float | None:
    known = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(known)) if known else None
