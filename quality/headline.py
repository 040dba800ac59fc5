"""A run's headline figures: annotators and annotations kept and dropped, by reason.

Reasons are sentences with the annotator's own numbers in them; grouped by the rule, a reason
counts once per rule with its numbers replaced by '#' ("accuracy #% on # labeled items ..."),
and an annotation dropped with its annotator counts under "annotator dropped".
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
WITH_ANNOTATOR = "annotator dropped"


def reason_rule(reason: str) -> str:
    """The rule a reason names: its numbers as '#', an annotator's drop as one rule."""
    if reason.startswith(WITH_ANNOTATOR + ":"):
        return WITH_ANNOTATOR
    return NUMBER.sub("#", reason)


def _by_rule(reasons: pd.Series, keep: pd.Series) -> dict[str, int]:
    counted: Counter[str] = Counter()
    for texts in reasons[~keep.astype(bool)]:
        counted.update({reason_rule(text) for text in texts} or {"(no reason given)"})
    return dict(counted.most_common())


def headline(responses: pd.DataFrame, annotators: pd.DataFrame) -> dict[str, Any]:
    """Counts from a run's decisions (`keep` and `reasons` columns of each frame)."""
    kept_responses, kept_annotators = int(responses["keep"].sum()), int(annotators["keep"].sum())
    return {
        "annotators": int(len(annotators)),
        "annotators_kept": kept_annotators,
        "annotators_dropped": int(len(annotators)) - kept_annotators,
        "annotations": int(len(responses)),
        "annotations_kept": kept_responses,
        "annotations_dropped": int(len(responses)) - kept_responses,
        "annotators_dropped_by_reason": _by_rule(annotators["reasons"], annotators["keep"]),
        "annotations_dropped_by_reason": _by_rule(responses["reasons"], responses["keep"]),
        "computed_on": "agreement and aggregation use the completed annotations the run keeps",
    }
