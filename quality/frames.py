"""The one place that turns a project's responses into DataFrames for quality.stats: the wide
annotation frame (one row per response) and, from it, the long label frame of one label field."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from annotation.kinds import LabelField
from annotation.models import Project
from annotation.selectors.responses import annotation_columns, annotation_rows, has_suggestions


def annotation_frame(project: Project) -> pd.DataFrame:
    """Every response a quality run judges: work a recruiting site has not confirmed is held apart
    (made-up ids under a real worker's id must not sway that worker's accuracy, agreement or
    the aggregated labels).

    A value a row lacks stays None in the text and object columns: pandas would read it back as
    NaN, which is truthy and not a string, so every kind's `row.get(key) or ...` would see it."""
    shown = has_suggestions(project)  # the model's suggestions shown with each answer (the report's anchoring)
    rows = annotation_rows(project, suggestions=shown)
    frame = pd.DataFrame.from_records(list(rows), columns=annotation_columns(project, suggestions=shown))
    text = frame.select_dtypes(include=["object", "str"]).columns
    frame[text] = frame[text].astype(object).where(frame[text].notna(), None)
    return frame


def kept_frame(frame: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """The completed responses a run keeps: agreement and aggregation are computed on these
    only, so a dropped annotator's labels neither count nor sway the others' majority.
    `keep`: a boolean Series indexed by response id (a response it lacks is not kept)."""
    kept = frame["response_id"].map(keep).fillna(False).astype(bool)
    completed = frame["completed"].fillna(False).astype(bool)
    return frame[kept & completed]


def label_frame(frame: pd.DataFrame, field: LabelField) -> pd.DataFrame:
    """The long frame (item, annotator, value) of one label field: item and annotator ids, the
    label read by `field.value` from each annotation row (None: no label)."""
    values = [_plain(field.value(row)) for row in frame.to_dict("records")]
    return pd.DataFrame(
        {"item": frame["item_id"].to_numpy(), "annotator": frame["annotator_id"].to_numpy(), "value": values},
        columns=["item", "annotator", "value"],
    )


def span_frame(frame: pd.DataFrame, field: LabelField) -> pd.DataFrame:
    """The long frame (item, annotator, value) of a span field, each value the spans as stored
    (read by `field.spans`; None: no answer). ValueError for a field without spans."""
    read = field.spans
    if read is None:
        raise ValueError(f"label field {field.name!r} holds no marked spans")
    return pd.DataFrame(
        {
            "item": frame["item_id"].to_numpy(),
            "annotator": frame["annotator_id"].to_numpy(),
            "value": [read(row) for row in frame.to_dict("records")],
        },
        columns=["item", "annotator", "value"],
    )


def _plain(value: Any) -> Any:
    """A whole float back to int (a column of ints with gaps is read as floats: 2.0 is label 2)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        return int(value)
    return value
