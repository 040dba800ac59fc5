"""The run's "suggestions" section: per label field, anchoring on the model's suggestions shown to
annotators (`quality.stats.suggestions`), on the annotations the run keeps. Computation only: the
frame's suggestion columns (`annotation.selectors.responses.suggestion_columns`) and the model's
labels of the items in, a JSON-able dict out."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from annotation.kinds import LabelField
from annotation.selectors.responses import SUGGESTION_MODEL
from quality.frames import label_frame
from quality.stats.suggestions import FieldSuggestions, WithModel, suggestion_figures


def suggestion_model(kept: pd.DataFrame) -> str | None:
    """The model whose suggestions the kept annotations were shown most often (None: none shown)."""
    if SUGGESTION_MODEL not in kept.columns:
        return None
    names = Counter(name for cell in kept[SUGGESTION_MODEL].dropna() for name in str(cell).split(", ") if name)
    return names.most_common(1)[0][0] if names else None


def suggestions_report(
    *, kept: pd.DataFrame, fields: Sequence[LabelField], model: str, labels: Mapping[int, Mapping[str, Any]]
) -> dict[str, Any]:
    """{model, fields: [figures of each field a suggestion was shown for]}; `labels`: item id ->
    the model's labels, compared with the annotations made without a suggestion."""
    rows = []
    for declared in fields:
        column = f"{declared.name}_kept"
        if column not in kept.columns or kept[column].isna().all():
            continue
        frame = label_frame(kept, declared).assign(
            shown=kept[column].notna().to_numpy(),
            kept=kept[column].to_numpy(),
            model=[
                suggested if shown is not None else labels.get(item, {}).get(declared.name)
                for item, shown, suggested in zip(kept["item_id"], kept[column], kept[f"{declared.name}_suggested"])
            ],
        )
        figures = suggestion_figures(frame, level=declared.level, order=declared.order)
        rows.append({"name": declared.name, "level": declared.level, **_json(figures)})
    return {"model": model, "fields": rows}


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _with_model(found: WithModel) -> dict[str, Any]:
    return {"n": found.n, "equal": _number(found.equal), "kappa": _number(found.kappa), "reason": found.reason}


def _json(figures: FieldSuggestions) -> dict[str, Any]:
    return {
        "n_shown": figures.n_shown,
        "n_kept": figures.n_kept,
        "kept_share": _number(figures.kept_share),
        "model_shown": _with_model(figures.model_shown),
        "model_not_shown": _with_model(figures.model_not_shown),
        **{
            key: {"value": _number(alpha.value), "n_items": alpha.n_items, "reason": alpha.reason}
            for key, alpha in (("among_shown", figures.among_shown), ("among_not_shown", figures.among_not_shown))
        },
    }
