"""ReCAM's selection rules (SemEval-2021 Task 4, Appendix E) and item diagnostics.

Input: one row per response with columns response_id, annotator_id, item_id, completed,
pre_correct, post_correct (True/False/None when the item has no label), support_span,
summary_span, second_choice, no_other_answer, difficulty, post_choice.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .accuracy import annotator_accuracy

ITEM_DIAGNOSTIC_COLUMNS = (
    "n_annotations",
    "n_kept",
    "post_accuracy",
    "pre_accuracy",
    "second_answer_share",
    "difficulty_easy",
    "difficulty_medium",
    "difficulty_difficult",
    "majority_choice",
    "majority_share",
)


@dataclass(frozen=True)
class Selection:
    responses: pd.DataFrame  # index response_id; keep, reasons
    annotators: pd.DataFrame  # index annotator_id; n_responses, n_gold, accuracy, keep, reasons
    summary: dict[str, Any] = field(default_factory=dict)


def _blank(series: pd.Series) -> pd.Series:
    return series.isna() | (series.astype("string").str.strip().fillna("") == "")


def select_annotations(
    frame: pd.DataFrame,
    *,
    min_accuracy: float = 0.4,
    easy_must_be_correct: bool = True,
    require_spans: bool = True,
) -> Selection:
    """Keep an annotation only if (a) its annotator's accuracy is above `min_accuracy`,
    (b) both spans are non-empty, (c) an item rated Easy was answered correctly.

    Accuracy is the post-reading accuracy over the annotator's completed, labeled items;
    an annotator with no labeled item cannot be judged by (a) and is not dropped by it.
    """
    frame = frame.set_index("response_id", drop=False)
    reasons: dict[Any, list[str]] = {rid: [] for rid in frame.index}
    completed = frame["completed"].astype(bool)
    for rid in frame.index[~completed]:
        reasons[rid].append("incomplete: not every page was answered")

    done = frame[completed]
    accuracy = annotator_accuracy(done.assign(correct=done["post_correct"]), correct="correct")
    counts = frame.groupby("annotator_id").size().rename("n_responses")
    annotators = pd.DataFrame(index=pd.Index(frame["annotator_id"].unique(), name="annotator_id"))
    annotators = annotators.join(counts).join(accuracy)
    annotators["n_gold"] = annotators["n_gold"].fillna(0).astype(int)
    low = annotators["accuracy"].notna() & ~(annotators["accuracy"] > min_accuracy)
    annotator_reasons = {
        aid: ([f"accuracy {acc:.3f} is not above {min_accuracy:.2f}"] if bad else [])
        for aid, acc, bad in zip(annotators.index, annotators["accuracy"], low)
    }
    annotators["keep"] = ~low
    annotators["reasons"] = [annotator_reasons[aid] for aid in annotators.index]

    for rid, aid in zip(done.index, done["annotator_id"]):
        if low.get(aid, False):
            reasons[rid].append(f"annotator {annotator_reasons[aid][0]}")
    if require_spans:
        for column, label in (("support_span", "supporting span"), ("summary_span", "summarized span")):
            for rid in done.index[_blank(done[column])]:
                reasons[rid].append(f"{label} is empty")
    if easy_must_be_correct:
        wrong_easy = (done["difficulty"] == "easy") & (done["post_correct"] == False)  # noqa: E712
        for rid in done.index[wrong_easy.fillna(False).astype(bool)]:
            reasons[rid].append("rated Easy but answered wrongly")

    responses = pd.DataFrame(
        {"keep": [not reasons[rid] for rid in frame.index], "reasons": [reasons[rid] for rid in frame.index]},
        index=frame.index,
    )
    summary = {
        "responses": int(len(frame)),
        "responses_kept": int(responses["keep"].sum()),
        "annotators": int(len(annotators)),
        "annotators_kept": int(annotators["keep"].sum()),
        "min_accuracy": min_accuracy,
        "mean_annotator_accuracy": _float(annotators["accuracy"].mean()),
    }
    return Selection(responses=responses, annotators=annotators, summary=summary)


def item_diagnostics(frame: pd.DataFrame, *, kept: pd.Series) -> pd.DataFrame:
    """Per item, over its kept annotations: can it be answered after reading (post accuracy),
    without reading (pre accuracy), is it ambiguous (share naming a second answer), how hard."""
    frame = frame.set_index("response_id", drop=False)
    keep = kept.reindex(frame.index).fillna(False).astype(bool)
    rows = frame[keep & frame["completed"].astype(bool)]
    all_items = pd.Index(frame["item_id"].unique(), name="item_id")
    total = frame[frame["completed"].astype(bool)].groupby("item_id").size()

    def known_mean(column: str) -> pd.Series:
        known = rows[rows[column].notna()]
        return known[column].astype(bool).astype(float).groupby(known["item_id"]).mean()

    named_second = rows["second_choice"].notna().astype(float)
    difficulty = pd.crosstab(rows["item_id"], rows["difficulty"]) if len(rows) else pd.DataFrame()
    result = pd.DataFrame(index=all_items)
    result["n_annotations"] = total.reindex(all_items).fillna(0).astype(int)
    result["n_kept"] = rows.groupby("item_id").size().reindex(all_items).fillna(0).astype(int)
    result["post_accuracy"] = known_mean("post_correct").reindex(all_items)
    result["pre_accuracy"] = known_mean("pre_correct").reindex(all_items)
    result["second_answer_share"] = named_second.groupby(rows["item_id"]).mean().reindex(all_items)
    for level in ("easy", "medium", "difficult"):
        column = difficulty[level] if level in difficulty else pd.Series(dtype=float)
        result[f"difficulty_{level}"] = column.reindex(all_items).fillna(0).astype(int)
    majority, share = _majority(rows)
    result["majority_choice"] = majority.reindex(all_items)
    result["majority_share"] = share.reindex(all_items)
    return result.replace({np.nan: None})


def _majority(rows: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    if rows.empty:
        return pd.Series(dtype=object), pd.Series(dtype=float)
    counts = rows.groupby(["item_id", "post_choice"]).size().rename("n").reset_index()
    # ties go to the lowest option index, so the result is deterministic
    counts = counts.sort_values(["item_id", "n", "post_choice"], ascending=[True, False, True])
    top = counts.drop_duplicates("item_id").set_index("item_id")
    totals = rows.groupby("item_id").size()
    return top["post_choice"].astype(int), top["n"] / totals.reindex(top.index)


def _float(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
