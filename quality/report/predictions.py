"""The report's "Model predictions" section: each model's scores from the run's report, shown as
one more annotator beside the kept humans, and the models imported since the run (scored by the
next one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality.models import QualityRun
from quality.prediction_selectors import prediction_imports, run_predictions

SCORE_KEYS = ("accuracy", "kappa", "pearson", "spearman", "mae")


def _fixed(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def _share(value: Any) -> str:
    return "—" if value is None else f"{value * 100:.1f}"


def field_rows(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per model, label field and reference (the humans' label, then the kind's answer
    key where it has one): the items scored and each score ('—' where it does not apply)."""
    levels, order = section.get("levels") or {}, section.get("fields") or []
    rows = []
    for model, figures in _models(section):
        for against, key in (("humans", "fields"), ("answer key", "gold")):
            scored = figures.get(key) or {}
            for name in [name for name in order if name in scored]:
                scores = scored[name]
                row = {"model": model, "field": name, "against": against, "level": levels.get(name, "")}
                row.update({k: _fixed(scores.get(k)) for k in SCORE_KEYS}, n_items=scores.get("n_items", 0))
                row["accuracy"] = _share(scores.get("accuracy"))
                rows.append(row)
    return rows


def annotator_rows(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The kept humans' mean agreement and kappa with the others' majority, then each model's with
    the humans' majority, on the main field: the model read as one more annotator."""
    humans = section.get("humans") or {}
    rows = [
        {
            "who": f"Human annotators (mean of {humans.get('n_annotators', 0)} kept)",
            "model": False,
            "n_items": "",
            "agreement": _share(humans.get("agreement_vs_majority")),
            "kappa": _fixed(humans.get("kappa_vs_majority")),
        }
    ]
    for model, figures in _models(section):
        scores = figures.get("as_annotator") or {}
        rows.append(
            {
                "who": model,
                "model": True,
                "n_items": scores.get("n_items", 0),
                "agreement": _share(scores.get("accuracy")),
                "kappa": _fixed(scores.get("kappa")),
            }
        )
    return rows


def kind_score_rows(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per model and kind scorer: its figures as (name, value) pairs, nested keys joined by dots
    (a model the kind's scorers could not score: why, as its one figure)."""
    rows = []
    for model, figures in _models(section):
        for scorer, result in (figures.get("kind_scores") or {}).items():
            shown = _flat(result) if isinstance(result, Mapping) else [("", str(result))]
            rows.append({"model": model, "scorer": "not scored" if scorer == "note" else scorer, "figures": shown})
    return rows


def _flat(result: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    flat: list[tuple[str, str]] = []
    for key, value in result.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat += _flat(value, f"{name}.")
        else:
            flat.append((name, f"{value:.3f}" if isinstance(value, float) else "—" if value is None else str(value)))
    return flat


def _models(section: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(model, its figures) in the models' order (by name)."""
    models = section.get("models") or {}
    return [(name, models[name]) for name in section.get("model_names") or sorted(models)]


def predictions_context(run: QualityRun) -> dict[str, Any]:
    """The section's context: empty when no model was ever imported into the project."""
    imports = prediction_imports(run.project)
    section = run_predictions(run)
    if not imports and not section:
        return {}
    scored = set(section.get("models") or {})
    finished = run.finished_at or run.created_at
    later = [model for model, (_n, at) in imports.items() if model not in scored or at > finished]
    return {
        "main_field": section.get("main_field"),
        "annotator_rows": annotator_rows(section) if scored else [],
        "field_rows": field_rows(section),
        "kind_score_rows": kind_score_rows(section),
        "imported_later": later,
    }
