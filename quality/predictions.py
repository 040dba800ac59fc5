"""Models' predictions scored in a quality run, as one more annotator beside the humans: per label
field against the humans' aggregated label of each item (a rating field: their mean; a set field:
the set most of them chose), and on the main field against the humans' majority as each human's
agreement is measured. Computation only: the humans' labels are read, never changed, so
agreement, aggregation, drops and the exports of human labels are the same with or without
predictions. `quality.services.run_agreement` stores what this returns in the run's report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from annotation.kinds import AGGREGATED_LEVELS, LabelField
from quality.agreement import main_field
from quality.frames import label_frame
from quality.stats.aggregation import majority_vote
from quality.stats.labels import clean_labels
from quality.stats.predictions import prediction_scores

#: model -> item id -> label field -> the model's value
Predictions = Mapping[str, Mapping[int, Mapping[str, Any]]]


def references(kept: pd.DataFrame, fields: Sequence[LabelField], aggregated: pd.DataFrame) -> dict[str, dict[int, Any]]:
    """Per field, item id -> the humans' label a model is scored against: the run's aggregated
    label (its method's, else the majority), the mean of a rating, the majority of a set."""
    found: dict[str, dict[int, Any]] = {}
    for field in fields:
        if field.level in AGGREGATED_LEVELS:
            column = next((c for c in (f"{field.name}_label", f"{field.name}_majority") if c in aggregated), None)
            found[field.name] = _by_item(aggregated[column]) if column else {}
            continue
        cleaned = clean_labels(label_frame(kept, field), sets=field.level == "set")
        if cleaned.empty:
            found[field.name] = {}
        elif field.level == "interval":
            found[field.name] = _by_item(
                cleaned.assign(value=cleaned["value"].astype(float)).groupby("item")["value"].mean()
            )
        else:
            found[field.name] = _by_item(majority_vote(cleaned)["label"])
    return found


def predictions_report(
    *,
    kept: pd.DataFrame,
    fields: Sequence[LabelField],
    aggregated: pd.DataFrame,
    annotators: pd.DataFrame,
    predictions: Predictions,
    gold: Mapping[int, Mapping[str, Any]],
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """The run report's "predictions" section: per model its scores per field it predicted and, as one more
    annotator, its agreement and kappa with the humans' majority on the main field; against the
    kind's answer key (`gold`: item id -> field -> value) where it has one; and the kept
    humans' mean of the same two figures, to read beside it."""
    reference = references(kept, fields, aggregated)
    main = main_field(fields, settings)
    majority = _main_majority(main, aggregated, reference)
    models = {}
    for model, by_item in sorted(predictions.items()):
        models[model] = {
            "n_items": len(by_item),
            "fields": {  # the fields the model predicted
                f.name: prediction_scores(reference[f.name], values, f.level)
                for f in fields
                if (values := _values(by_item, f.name))
            },
            "gold": {  # the fields the kind has an answer key of
                f.name: prediction_scores(keys, _values(by_item, f.name), f.level)
                for f in fields
                if (keys := _values(gold, f.name))
            },
            "as_annotator": prediction_scores(majority, _values(by_item, main.name), main.level) if main else None,
        }
    return {
        "fields": [f.name for f in fields],
        "levels": {f.name: f.level for f in fields},
        "main_field": main.name if main else None,
        "models": models,
        "model_names": list(models),  # jsonb reorders object keys; this keeps the models' order
        "humans": _humans(annotators),
    }


def _main_majority(main: LabelField | None, aggregated: pd.DataFrame, reference: Mapping[str, Any]) -> dict[int, Any]:
    if main is None:
        return {}
    column = f"{main.name}_majority"
    return _by_item(aggregated[column]) if column in aggregated else dict(reference[main.name])


def _humans(annotators: pd.DataFrame) -> dict[str, Any]:
    """The kept annotators' mean agreement and kappa with the others' majority (the Annotators table's)."""
    kept = annotators[annotators["keep"].astype(bool)] if "keep" in annotators else annotators
    out: dict[str, Any] = {"n_annotators": int(len(kept))}
    for key in ("agreement_vs_majority", "kappa_vs_majority"):
        values = pd.to_numeric(kept[key], errors="coerce").dropna() if key in kept else pd.Series(dtype=float)
        out[key] = float(values.mean()) if len(values) else None
    return out


def _values(by_item: Mapping[int, Mapping[str, Any]], name: str) -> dict[int, Any]:
    return {item: labels[name] for item, labels in by_item.items() if labels.get(name) is not None}


def _by_item(series: pd.Series) -> dict[int, Any]:
    return {int(item): _plain(value) for item, value in series.items() if value is not None and value == value}


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
