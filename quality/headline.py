"""A run's headline figures: annotators and annotations kept and dropped, by reason.

Reasons are sentences with the annotator's own numbers in them; grouped by the rule (the
sentence with its numbers taken out), a reason counts once per rule, and the rule reads as the
sentences do: a number all of them share as it is (the threshold), one that differs as the
range it spans ("accuracy 20.0–45.0% on 10 labeled items is not above the minimum of 60%").
An annotation dropped with its annotator counts under "annotator dropped".
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
WITH_ANNOTATOR = "annotator dropped"
SLOT = "\x00"


def reason_rule(reason: str) -> str:
    """The rule a reason names: its numbers as '#', an annotator's drop as one rule (a key only:
    `_rule_text` is what a person reads)."""
    if reason.startswith(WITH_ANNOTATOR + ":"):
        return WITH_ANNOTATOR
    return NUMBER.sub("#", reason)


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def _rule_text(reasons: list[str]) -> str:
    """The reasons of one rule as one sentence: each number shared by all, or its range."""
    slots = [NUMBER.findall(reason) for reason in reasons]
    shown = []
    for numbers in zip(*slots, strict=True):
        low, high = min(numbers, key=_value), max(numbers, key=_value)
        shown.append(low if _value(low) == _value(high) else f"{low}–{high}")
    template = NUMBER.sub(SLOT, reasons[0])
    for number in shown:
        template = template.replace(SLOT, number, 1)
    return template


def _by_rule(reasons: pd.Series, keep: pd.Series) -> dict[str, int]:
    counted: Counter[str] = Counter()
    texts: dict[str, list[str]] = {}
    for given in reasons[~keep.astype(bool)]:
        rules = {reason_rule(text): text for text in given} or {"(no reason given)": "(no reason given)"}
        counted.update(list(rules))
        for rule, text in rules.items():
            texts.setdefault(rule, []).append(text)
    named = {rule: WITH_ANNOTATOR if rule == WITH_ANNOTATOR else _rule_text(texts[rule]) for rule in counted}
    return {named[rule]: n for rule, n in counted.most_common()}


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
