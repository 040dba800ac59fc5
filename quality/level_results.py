"""What a quality run adds for the label levels that are not voted on: per item of an interval
field its mean, median, SD, bootstrap interval and mean z-score (`quality.stats.scores`); per item
of a span field the spans a majority marked and the spans marked per label, and the field's
pairwise span F1 (`quality.stats.spans`). Computed on the annotations the run keeps.

Computation only (pandas in, JSON-able dicts and a DataFrame out); the per-item columns are
declared once, by `level_columns`, which the items export and the Hub card read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.kinds import LabelField
from quality.frames import label_frame, span_frame
from quality.stats.alpha import Bootstrap
from quality.stats.scores import interval_scores
from quality.stats.spans import span_results

#: per-item columns of an interval field, after its name (`<field>_mean` ...)
INTERVAL_SUFFIXES = ("mean", "median", "sd", "ci_low", "ci_high", "z")
#: per-item columns of a span field: the agreed spans (a list of {start, end, text, label}) and
#: how many spans each label got from all annotators ({label: count})
SPAN_SUFFIXES = ("spans", "span_counts")


@dataclass(frozen=True)
class LevelResults:
    items: pd.DataFrame  # index item id: `level_columns`
    scores: dict[str, dict[str, Any]]  # interval field -> summary (JSON-able)
    spans: dict[str, dict[str, Any]]  # span field -> F1 figures, pairs and labels (JSON-able)


def is_span_field(field: LabelField) -> bool:
    return field.spans is not None


def level_columns(fields: Sequence[LabelField]) -> list[str]:
    """The per-item columns of the interval and span fields, in the fields' order."""
    columns: list[str] = []
    for field in fields:
        if is_span_field(field):
            columns += [f"{field.name}_{suffix}" for suffix in SPAN_SUFFIXES]
        elif field.level == "interval":
            columns += [f"{field.name}_{suffix}" for suffix in INTERVAL_SUFFIXES]
    return columns


def level_results(kept: pd.DataFrame, fields: Sequence[LabelField], bootstrap: Bootstrap) -> LevelResults:
    """The interval and span fields' results on the kept annotations (`bootstrap` seeds and sizes
    the intervals of the means, as it does alpha's). A stored value that is not a score or a list
    of spans raises ValueError naming the field, the item and the annotator."""
    tables: list[pd.DataFrame] = []
    scores: dict[str, dict[str, Any]] = {}
    spans: dict[str, dict[str, Any]] = {}
    for field in [] if kept.empty else fields:
        try:
            if is_span_field(field):
                table, spans[field.name] = _spans(kept, field)
            elif field.level == "interval":
                table, scores[field.name] = _scores(kept, field, bootstrap)
            else:
                continue
        except ValueError as error:
            raise ValueError(f"label field {field.name!r}: {error}") from error
        tables.append(table)
    frame = pd.concat(tables, axis=1) if tables else pd.DataFrame()
    return LevelResults(items=frame.set_axis([int(i) for i in frame.index]), scores=scores, spans=spans)


def _spans(kept: pd.DataFrame, field: LabelField) -> tuple[pd.DataFrame, dict[str, Any]]:
    result = span_results(span_frame(kept, field))
    table = pd.DataFrame(
        {f"{field.name}_spans": result.items["spans"], f"{field.name}_span_counts": result.items["label_counts"]}
    )
    summary = {
        "title": field.title or field.name,
        "n_items": int(len(result.items)),
        "items_with_spans": int(sum(bool(s) for s in result.items["spans"])),
        "exact_f1": _number(result.exact_f1),
        "overlap_f1": _number(result.overlap_f1),
        "n_pairs": int(result.pairs[["exact_f1", "overlap_f1"]].notna().any(axis=1).sum()),
        "labels": result.labels,
    }
    return table, summary


def _scores(kept: pd.DataFrame, field: LabelField, bootstrap: Bootstrap) -> tuple[pd.DataFrame, dict[str, Any]]:
    result = interval_scores(label_frame(kept, field), **bootstrap)
    items = result.items
    summary = {
        "title": field.title or field.name,
        "n_items": int(len(items)),
        "mean_of_means": _number(items["mean"].mean()),
        "mean_sd": _number(items["sd"].mean()),
        "annotators_without_z": int(result.annotators["sd"].fillna(0).eq(0).sum()),
        "iterations": result.iterations,
        "confidence": result.confidence,
    }
    return items[list(INTERVAL_SUFFIXES)].add_prefix(f"{field.name}_"), summary


def _number(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value
