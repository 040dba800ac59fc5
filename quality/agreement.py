"""Agreement and aggregation of a quality run, per label field the kind declares, on the
annotations the run keeps; and the per-annotator agreement rule (`min_annotator_kappa`).

Computation only (pandas in, JSON-able dicts and DataFrames out); `quality.services.runs` stores
what this returns. The statistics themselves are `quality.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.kinds import AGGREGATED_LEVELS, AUTO, LabelField, QualityOutcome, aggregation_methods, bootstrap_rounds
from annotation.naming import annotator_name
from quality.drops import drop_annotators
from quality.frames import kept_frame, label_frame
from quality.stats.aggregation import agreement_with_majority, majority_vote
from quality.stats.agreement import FieldAgreement, field_agreement
from quality.stats.alpha import Bootstrap
from quality.stats.dawid_skene import dawid_skene
from quality.stats.labels import clean_labels
from quality.uncertainty import UNCERTAINTY_SUFFIXES, field_uncertainty

BOOTSTRAP: Bootstrap = {"iterations": 1000, "seed": 0, "confidence": 0.95}
ICC_FIGURES = ("single", "average", "k0", "msb", "msw", "f", "p_value", "n_items", "n_scores", "reason")
#: per-item columns of an aggregated field, after its name: `<field>_majority` ... (as runs have
#: always stored them), then the chosen method's label with its uncertainty (quality.uncertainty)
AGGREGATE_SUFFIXES = ("majority", "majority_share", "majority_tie", "ds_label", "ds_posterior", *UNCERTAINTY_SUFFIXES)


@dataclass(frozen=True)
class RunAgreement:
    fields: dict[str, dict[str, Any]]  # field name -> agreement figures (JSON-able)
    aggregation: dict[str, dict[str, Any]]  # field name -> aggregation summary (JSON-able)
    items: pd.DataFrame  # index item id: AGGREGATE_SUFFIXES columns per aggregated field
    # field name -> method, posteriors' summary, annotators' competence with intervals (JSON-able)
    uncertainty: dict[str, dict[str, Any]]


def aggregate_columns(fields: Sequence[LabelField]) -> list[str]:
    """The per-item columns aggregation adds (the items export writes them)."""
    return [f"{f.name}_{suffix}" for f in fields if f.level in AGGREGATED_LEVELS for suffix in AGGREGATE_SUFFIXES]


def main_field(fields: Sequence[LabelField], settings: Mapping[str, Any]) -> LabelField | None:
    """The field the per-annotator rule judges: `annotator_kappa_field`, else the first non-set one."""
    wanted = settings.get("annotator_kappa_field") or ""
    usable = [f for f in fields if f.level != "set"]
    if wanted:
        named = [f for f in usable if f.name == wanted]
        if not named:
            raise ValueError(f"annotator_kappa_field {wanted!r} is not one of {[f.name for f in usable]}")
        return named[0]
    return usable[0] if usable else None


def annotator_agreement(kept: pd.DataFrame, fields: Sequence[LabelField], settings: Mapping[str, Any]) -> pd.DataFrame:
    """Each annotator's share of agreement and Cohen's kappa against the majority of the others,
    on the main field (index annotator id; empty without a usable field or labels)."""
    chosen = main_field(fields, settings)
    labels = clean_labels(label_frame(kept, chosen)) if chosen is not None and not kept.empty else None
    if labels is None or labels.empty:
        return pd.DataFrame(columns=["agreement_vs_majority", "kappa_vs_majority"])
    table = agreement_with_majority(labels)
    table = table[["n_items", "agreement", "kappa"]].rename(
        columns={"n_items": "n_items_vs_majority", "agreement": "agreement_vs_majority", "kappa": "kappa_vs_majority"}
    )
    return table.set_axis([int(i) for i in table.index])


def low_agreement_annotators(
    table: pd.DataFrame, fields: Sequence[LabelField], settings: Mapping[str, Any]
) -> dict[int, str]:
    """Annotators of `annotator_agreement` whose kappa is below `min_annotator_kappa`, with the
    reason in words; none when the setting is None. An annotator whose kappa cannot be computed
    (no item with a majority of others) stays."""
    threshold, chosen = settings.get("min_annotator_kappa"), main_field(fields, settings)
    if threshold is None or chosen is None or table.empty:
        return {}
    low = table[table["kappa_vs_majority"].notna() & (table["kappa_vs_majority"] < float(threshold))]
    return {
        int(who): f"kappa {row.kappa_vs_majority:.3f} against the others' majority on {chosen.name} "
        f"({row.n_items_vs_majority} items) is below the minimum of {float(threshold):g}"
        for who, row in low.iterrows()
    }


def apply_annotator_rule(
    frame: pd.DataFrame, outcome: QualityOutcome, fields: Sequence[LabelField], settings: Mapping[str, Any]
) -> QualityOutcome:
    """The kind's outcome with each annotator's agreement with the others' majority (judged on
    what the kind's rules kept) among its metrics, and the annotators below `min_annotator_kappa`
    dropped with their reason, their annotations with "annotator dropped: <reason>", as the
    kinds' own annotator rules record it."""
    table = annotator_agreement(kept_frame(frame, outcome.responses["keep"]), fields, settings)
    drops = low_agreement_annotators(table, fields, settings)
    new = [c for c in table.columns if c not in outcome.annotators.columns]
    annotators = outcome.annotators.join(table[new], how="left")
    if "n_items_vs_majority" in new:  # an annotator not in the table had no item with a majority of others
        annotators["n_items_vs_majority"] = annotators["n_items_vs_majority"].fillna(0).astype(int)
    return drop_annotators(frame, outcome, annotators, drops, "dropped_low_agreement_annotator")


def run_agreement(kept: pd.DataFrame, fields: Sequence[LabelField], settings: Mapping[str, Any]) -> RunAgreement:
    """Every field's agreement; for nominal and ordinal fields majority vote and Dawid-Skene, and
    the label of the field's `aggregation_method` with its posterior and bootstrap interval
    (`bootstrap_rounds` resamples of the annotators). Raises ValueError on a wrong setting."""
    methods = aggregation_methods(settings.get("aggregation_method", AUTO), fields)
    rounds = bootstrap_rounds(settings.get("bootstrap_rounds", 0))
    names = _annotator_names(kept)
    figures: dict[str, dict[str, Any]] = {}
    aggregation: dict[str, dict[str, Any]] = {}
    uncertainty: dict[str, dict[str, Any]] = {}
    items: list[pd.DataFrame] = []
    for declared in fields:
        labels = label_frame(kept, declared)
        result = field_agreement(labels, level=declared.level, order=declared.order, **BOOTSTRAP)
        figures[declared.name] = agreement_json(result, declared)
        cleaned = clean_labels(labels, sets=declared.level == "set")
        if declared.level in AGGREGATED_LEVELS and not cleaned.empty:
            table, summary = _aggregate(cleaned, declared.name)
            sure, uncertainty[declared.name] = field_uncertainty(
                cleaned, declared.name, requested=methods[declared.name], rounds=rounds, annotator_names=names
            )
            items.append(table.join(sure))
            aggregation[declared.name] = summary
    frame = pd.concat(items, axis=1) if items else pd.DataFrame()
    return RunAgreement(figures, aggregation, frame, uncertainty)


def _annotator_names(kept: pd.DataFrame) -> dict[Any, str]:
    """Annotator id -> the name the report shows (`annotator_name`: number and channel id)."""
    if kept.empty or "annotator" not in kept.columns:
        return {}
    pairs = kept[["annotator_id", "annotator"]].drop_duplicates("annotator_id")
    return {who: annotator_name(who, str(name)) for who, name in zip(pairs["annotator_id"], pairs["annotator"])}


def pilot_agreement(
    kept: pd.DataFrame, fields: Sequence[LabelField], pilot_items: set[tuple[int, int]]
) -> dict[str, dict[str, Any]] | None:
    """Every field's agreement on the pilot items only (`pilot_items`: (batch id, item id) of the
    batches' pilot units), as `run_agreement` measures it on all; None until two annotators have
    done a pilot item. The pilot is everybody's first work, so this is the earliest reading."""
    if kept.empty or not pilot_items:
        return None
    pilot = kept[[key in pilot_items for key in zip(kept["batch_id"], kept["item_id"])]]
    if not (pilot.groupby("item_id")["annotator_id"].nunique() >= 2).any():
        return None
    return {
        declared.name: agreement_json(
            field_agreement(label_frame(pilot, declared), level=declared.level, order=declared.order, **BOOTSTRAP),
            declared,
        )
        for declared in fields
    }


def _aggregate(cleaned: pd.DataFrame, name: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per item: the majority (None on a tie), its share, the tie, Dawid-Skene's label and posterior."""
    majority = majority_vote(cleaned)
    # plain EM, as the quality run has always reported it: the prior (the function's default) gives
    # a small project's unanimous pairs posteriors of 0.3-0.9, which waits for the per-field method
    # setting and the report's posteriors with intervals (issue 28)
    fitted = dawid_skene(cleaned, alpha=0)
    ds = fitted.labels.reindex(majority.index)
    table = pd.DataFrame(
        {
            f"{name}_majority": majority["label"],
            f"{name}_majority_share": majority["share"],
            f"{name}_majority_tie": majority["tie"],
            f"{name}_ds_label": ds["label"],
            f"{name}_ds_posterior": ds["posterior"],
        },
        index=majority.index,
    )
    summary = {
        "n_items": int(len(majority)),
        "majority_ties": int(majority["tie"].sum()),
        "majority_agrees_with_ds": int((majority["label"] == ds["label"]).sum()),
        "ds_mean_posterior": _number(ds["posterior"].mean()),
        "ds_iterations": int(fitted.iterations),
        "ds_converged": bool(fitted.converged),
        "ds_priors": {str(k): _number(v) for k, v in fitted.priors.items()},
    }
    return table, summary


def agreement_json(result: FieldAgreement, declared: LabelField) -> dict[str, Any]:
    """The figures of `field_agreement` as plain JSON (NaN as None; pair tables left out)."""
    out: dict[str, Any] = {
        "title": declared.title or declared.name,
        "level": result.level,
        "n_items": int(result.n_items),
        "n_annotators": int(result.n_annotators),
        "n_labels": int(result.n_labels),
        "observed": _plain(result.observed, ("value", "n_items", "reason")),
        "alpha": _plain(result.alpha, ("value", "low", "high", "level", "n_items", "n_values", "iterations", "reason")),
        "cohen": _plain(result.cohen, ("mean", "n_pairs", "reason")),
        "fleiss": _plain(result.fleiss, ("value", "n_items", "raters_per_item", "n_excluded", "reason")),
        "spearman_pairwise_mean": _number(result.spearman.mean) if result.spearman else None,
        "spearman_vs_rest_mean": _number(result.spearman_vs_rest.mean) if result.spearman_vs_rest else None,
        "icc": _plain(result.icc, ICC_FIGURES),
        "not_applicable": dict(result.not_applicable),
    }
    return out


def _plain(value: Any, names: Sequence[str]) -> dict[str, Any] | None:
    if value is None:
        return None
    return {name: _number(getattr(value, name)) for name in names}


def _number(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
