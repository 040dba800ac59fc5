"""GCRC's quality step, on a DataFrame of annotation rows (pure: pandas and quality.stats only).

The annotators are experts, so nothing is filtered beyond unfinished work (the paper applies no
other rule). The summary scores the annotations against the item's reference labels where the
import had them (the task's eval.py measures) and, over the items two annotators did, their
agreement per field (the paper reports 83.8 % overall).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from quality.stats import gcrc as gcrc_stats

from ..base import QualityOutcome
from .labels import OPTION_LETTERS
from .released import labels_from_row

#: Tan et al. (2021) §4: the two annotators' overall agreement
PAPER_AGREEMENT = 0.838
ITEM_DIAGNOSTIC_COLUMNS = ["annotation_count", "annotations", "observed_agreement"]
REFERENCE_KEYS = ("answer", "evidences", "error_type")


def _annotation(row: dict[str, Any]) -> dict[str, Any]:
    who = {
        "response_id": int(row["response_id"]),
        "annotator_id": int(row["annotator_id"]),
        "annotator": row.get("annotator"),
    }
    return {**who, **labels_from_row(row)}


def _option_labels(labels: dict[str, Any]) -> list[gcrc_stats.OptionLabels]:
    return [
        gcrc_stats.OptionLabels(tuple(labels["evidences"][i]), labels["reasoning_ability"][i], labels["error_type"][i])
        for i in range(len(OPTION_LETTERS))
    ]


def _pairs(annotations: list[dict[str, Any]]) -> tuple[list, list]:
    """The first two annotations of an item (by response id), as aligned option labels."""
    first, second = sorted(annotations, key=lambda a: a["response_id"])[:2]
    return _option_labels(first), _option_labels(second)


SCORE_KEYS = ("Task1_Acc", "Task2_F1", "Task3_Acc", "Score")


def _scored(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]], prefix: str, count: str) -> dict[str, Any]:
    """(reference, labels) pairs scored as one question each (the task's eval.py measures);
    pairs whose reference has no labels are left out, and `count` says how many were scored."""
    gold, predicted = {}, {}
    for key, (reference, labels) in enumerate(pairs):
        truth = {k: reference[k] for k in REFERENCE_KEYS if k in (reference or {})}
        if truth:
            gold[str(key)], predicted[str(key)] = truth, labels
    if not gold:
        return {count: 0}
    scores = gcrc_stats.score(predicted, gold).as_dict()
    return {count: len(gold), **{f"{prefix}{k}": scores[k] for k in SCORE_KEYS}}


def _reference_scores(done: list[dict[str, Any]]) -> dict[str, Any]:
    """Every finished annotation scored against its item's reference labels, as one question."""
    pairs = ((json.loads(row["reference"]) if row.get("reference") else {}, labels_from_row(row)) for row in done)
    return _scored(pairs, "reference_", "reference_annotations")


def final_reference_scores(finals: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
    """The adjudicated (final) labels, as (item's reference, released item built from them),
    scored against the references the import kept: how many items were scored and the scores."""
    return _scored(finals, "final_vs_reference_", "final_vs_reference_items")


def _agreement(by_item: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    first: list = []
    second: list = []
    items = 0
    for labeled in by_item.values():
        if len(labeled) >= 2:
            a, b = _pairs(labeled)
            first += a
            second += b
            items += 1
    figures: dict[str, Any] = {"agreement_items": items, "paper_agreement_overall": PAPER_AGREEMENT}
    if items:
        result = gcrc_stats.two_annotator_agreement(first, second)
        figures.update(
            {
                f"agreement_{name}": getattr(result, name)
                for name in (
                    "options",
                    "overall",
                    "evidence",
                    "skill",
                    "error",
                    "error_options",
                    "evidence_f1",
                    "skill_kappa",
                    "error_kappa",
                    "evidence_alpha",
                )
            }
        )
    return figures


def _observed(annotations: list[dict[str, Any]]) -> float | None:
    """The share of an item's field comparisons where its first two annotators agree."""
    if len(annotations) < 2:
        return None
    first, second = _pairs(annotations)
    same = []
    for a, b in zip(first, second, strict=True):
        same += [set(a.evidence) == set(b.evidence), a.skill == b.skill]
        if a.error or b.error:
            same.append(a.error == b.error)
    return sum(same) / len(same)


def _by_item(frame: pd.DataFrame, chosen: pd.Series) -> dict[int, list[dict[str, Any]]]:
    """Per item (every item of `frame`), the annotations of the rows `chosen` marks."""
    by_item: dict[int, list[dict[str, Any]]] = {int(i): [] for i in frame["item_id"]}
    for row in frame[chosen.to_numpy()].to_dict("records"):
        by_item[int(row["item_id"])].append(_annotation(row))
    return by_item


def _items(by_item: dict[int, list[dict[str, Any]]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"annotation_count": len(a), "annotations": a, "observed_agreement": _observed(a)} for a in by_item.values()],
        index=pd.Index(list(by_item), name="item_id"),
        columns=ITEM_DIAGNOSTIC_COLUMNS,
    )


def _completed(frame: pd.DataFrame) -> pd.Series:
    return frame["completed"].fillna(False).astype(bool)


def kept_items(frame: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """The items' diagnostics on the annotations the run finally keeps (`keep`: bool per
    response id, after the researcher's verdicts and the generic rules): a rejected annotation
    is neither listed (the `gcrc_annotations` export) nor counted, nor compared; an unfinished one
    has no labels to list."""
    chosen = frame["response_id"].astype(int).map(keep).fillna(False).astype(bool) & _completed(frame)
    return _items(_by_item(frame, chosen))


def select(frame: pd.DataFrame) -> QualityOutcome:
    """Keep every finished annotation; report reference scores and two annotators' agreement."""
    completed = _completed(frame)
    responses = pd.DataFrame(
        {"keep": completed.to_numpy(), "reasons": [[] if c else ["incomplete"] for c in completed]},
        index=frame["response_id"].astype(int),
    )
    done = frame[completed].to_dict("records")
    by_item = _by_item(frame, completed)
    items = _items(by_item)
    counts = pd.Series([int(r["annotator_id"]) for r in done], dtype="int64").value_counts()
    annotator_ids = sorted({int(a) for a in frame["annotator_id"]})
    annotators = pd.DataFrame(
        {
            "keep": True,
            "reasons": [[] for _ in annotator_ids],
            "annotations": [int(counts.get(a, 0)) for a in annotator_ids],
        },
        index=pd.Index(annotator_ids, name="annotator_id"),
    )
    summary = {
        "responses": len(frame),
        "responses_kept": int(completed.sum()),
        "annotators": len(annotator_ids),
        **_reference_scores(done),
        **_agreement(by_item),
    }
    return QualityOutcome(responses=responses, annotators=annotators, items=items, summary=summary)
