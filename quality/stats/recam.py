"""ReCAM's selection rules (SemEval-2021 Task 4, Appendix E) and item diagnostics.

Input: one row per response with columns response_id, annotator_id, item_id, completed,
pre_correct, post_correct (True/False/None when the item has no label), support_span,
summary_span, second_choice, difficulty, post_choice.
"""

from __future__ import annotations

from collections.abc import Callable
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
DIFFICULTY_LEVELS = ("easy", "medium", "difficult")

REASON_INCOMPLETE = "incomplete: not every page was answered"
REASON_EASY_WRONG = "rated Easy but answered wrongly"
SPAN_RULES = (("support_span", "supporting span is empty"), ("summary_span", "summarized span is empty"))


@dataclass(frozen=True)
class Selection:
    responses: pd.DataFrame  # index response_id; keep, reasons
    annotators: pd.DataFrame  # index annotator_id; n_responses, n_gold, accuracy, keep, reasons
    summary: dict[str, Any] = field(default_factory=dict)


def _blank(series: pd.Series) -> pd.Series:
    return series.isna() | (series.astype("string").str.strip().fillna("") == "")


def _percent(share: float) -> str:
    return f"{share * 100:g}%"


def _accuracy_reason(accuracy: float, n_gold: int, min_accuracy: float) -> str:
    items = "item" if n_gold == 1 else "items"
    return f"accuracy {accuracy:.1%} on {n_gold} labeled {items} is not above the minimum of {_percent(min_accuracy)}"


def judge_annotators(frame: pd.DataFrame, *, min_accuracy: float) -> pd.DataFrame:
    """Rule (a): post-reading accuracy over the annotator's completed, labeled items must be
    strictly above `min_accuracy` ("higher than 40%"); with no labeled item there is nothing
    to judge, so the annotator stays."""
    done = frame[frame["completed"].fillna(False).astype(bool)]
    accuracy = annotator_accuracy(done.assign(correct=done["post_correct"]), correct="correct")
    annotators = pd.DataFrame(index=pd.Index(frame["annotator_id"].unique(), name="annotator_id"))
    annotators["n_responses"] = frame.groupby("annotator_id").size().reindex(annotators.index).astype(int)
    annotators = annotators.join(accuracy)
    annotators["n_gold"] = annotators["n_gold"].fillna(0).astype(int)
    low = annotators["accuracy"].notna() & ~(annotators["accuracy"] > min_accuracy)
    annotators["keep"] = ~low
    annotators["reasons"] = [
        [_accuracy_reason(acc, n, min_accuracy)] if bad else []
        for acc, n, bad in zip(annotators["accuracy"], annotators["n_gold"], low)
    ]
    return annotators


def _rule_masks(
    frame: pd.DataFrame, annotators: pd.DataFrame, *, easy_must_be_correct: bool, require_spans: bool
) -> dict[str, pd.Series]:
    """One boolean mask per rule over all responses: True where the rule drops the response."""
    completed = frame["completed"].fillna(False).astype(bool)
    dropped_annotator = frame["annotator_id"].map(~annotators["keep"]).fillna(False).astype(bool)
    masks = {"incomplete": ~completed, "low_accuracy_annotator": completed & dropped_annotator}
    if require_spans:
        for column, _ in SPAN_RULES:
            masks[column] = completed & _blank(frame[column])
    if easy_must_be_correct:
        wrong = frame["post_correct"].map(lambda v: v is False or v is np.False_)
        masks["easy_wrong"] = completed & (frame["difficulty"] == "easy").fillna(False) & wrong
    return masks


def _always(text: str) -> Callable[[Any], str]:
    """A reason that is the same whoever the annotator."""
    return lambda aid: text


def _reasons(frame: pd.DataFrame, annotators: pd.DataFrame, masks: dict[str, pd.Series]) -> list[list[str]]:
    texts: dict[str, Callable[[Any], str]] = {
        "incomplete": lambda aid: REASON_INCOMPLETE,
        "low_accuracy_annotator": lambda aid: "annotator dropped: " + annotators.at[aid, "reasons"][0],
        **{column: _always(text) for column, text in SPAN_RULES},
        "easy_wrong": lambda aid: REASON_EASY_WRONG,
    }
    reasons: list[list[str]] = [[] for _ in range(len(frame))]
    annotator_ids = frame["annotator_id"].to_numpy()
    for rule, mask in masks.items():
        for position in np.flatnonzero(mask.to_numpy()):
            reasons[position].append(texts[rule](annotator_ids[position]))
    return reasons


def select_annotations(
    frame: pd.DataFrame,
    *,
    min_accuracy: float = 0.4,
    easy_must_be_correct: bool = True,
    require_spans: bool = True,
) -> Selection:
    """Keep an annotation only if it is complete and (a) its annotator's accuracy is above
    `min_accuracy`, (b) both spans are non-empty, (c) an item rated Easy was answered correctly.
    Every dropped response and annotator gets the reasons in words."""
    frame = frame.set_index("response_id", drop=False)
    annotators = judge_annotators(frame, min_accuracy=min_accuracy)
    masks = _rule_masks(frame, annotators, easy_must_be_correct=easy_must_be_correct, require_spans=require_spans)
    reasons = _reasons(frame, annotators, masks)
    responses = pd.DataFrame({"keep": [not r for r in reasons], "reasons": reasons}, index=frame.index)
    spans = [masks[c] for c, _ in SPAN_RULES if c in masks]
    summary = {
        "responses": int(len(frame)),
        "responses_kept": int(responses["keep"].sum()),
        "annotators": int(len(annotators)),
        "annotators_kept": int(annotators["keep"].sum()),
        "min_accuracy": min_accuracy,
        "mean_annotator_accuracy": _float(annotators["accuracy"].mean()),
        # responses hit by each rule; one response may hit several
        "dropped_incomplete": int(masks["incomplete"].sum()),
        "dropped_low_accuracy_annotator": int(masks["low_accuracy_annotator"].sum()),
        "dropped_empty_span": int(np.logical_or.reduce(spans).sum()) if spans else 0,
        "dropped_easy_wrong": int(masks["easy_wrong"].sum()) if "easy_wrong" in masks else 0,
    }
    return Selection(responses=responses, annotators=annotators, summary=summary)


def item_diagnostics(frame: pd.DataFrame, *, kept: pd.Series) -> pd.DataFrame:
    """Per item, over its kept annotations: can it be answered after reading (post accuracy),
    without reading (pre accuracy), is it ambiguous (share naming a second answer), how hard,
    and what most annotators chose. Values are plain Python (int, float, None)."""
    frame = frame.set_index("response_id", drop=False)
    completed = frame["completed"].fillna(False).astype(bool)
    rows = frame[kept.reindex(frame.index).fillna(False).astype(bool) & completed]
    items = pd.Index(frame["item_id"].unique(), name="item_id")
    by_item = rows.groupby("item_id")
    result = pd.DataFrame(index=items)
    result["n_annotations"] = frame[completed].groupby("item_id").size().reindex(items).fillna(0).astype(int)
    result["n_kept"] = by_item.size().reindex(items).fillna(0).astype(int)
    result["post_accuracy"] = _known_mean(rows, "post_correct").reindex(items)
    result["pre_accuracy"] = _known_mean(rows, "pre_correct").reindex(items)
    named_second = rows["second_choice"].notna().astype(float)
    result["second_answer_share"] = named_second.groupby(rows["item_id"]).mean().reindex(items)
    for level in DIFFICULTY_LEVELS:
        count = (rows["difficulty"] == level).astype(int).groupby(rows["item_id"]).sum()
        result[f"difficulty_{level}"] = count.reindex(items).fillna(0).astype(int)
    majority, share = _majority(rows)
    result["majority_choice"] = majority.reindex(items)
    result["majority_share"] = share.reindex(items)
    return _plain(result[list(ITEM_DIAGNOSTIC_COLUMNS)])


def _known_mean(rows: pd.DataFrame, column: str) -> pd.Series:
    known = rows[rows[column].notna()]
    return known[column].astype(bool).astype(float).groupby(known["item_id"]).mean()


def _majority(rows: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The most chosen post-reading option per item; ties go to the lowest option index."""
    if rows.empty:
        return pd.Series(dtype=object), pd.Series(dtype=float)
    counts = rows.groupby(["item_id", "post_choice"]).size().rename("n").reset_index()
    counts = counts.sort_values(["item_id", "n", "post_choice"], ascending=[True, False, True])
    top = counts.drop_duplicates("item_id").set_index("item_id")
    totals = rows.groupby("item_id").size()
    choice = pd.Series([int(c) for c in top["post_choice"]], index=top.index, dtype=object)
    return choice, top["n"] / totals.reindex(top.index)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Object columns of Python int/float/None, so callers can store or serialise them as-is."""
    plain = frame.astype(object)
    return plain.where(frame.notna(), None).replace({np.nan: None})


def _float(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
