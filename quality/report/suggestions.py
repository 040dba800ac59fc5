"""The report's "Model suggestions" section (the run's `suggestions`): per label field, how often
annotators kept the model's suggestion, their agreement with the model's label and with each
other with and without a suggestion shown, in the researcher's words, each missing figure with
its reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality.models import QualityRun
from quality.report.format import MISSING


def _share(value: Any) -> str:
    return MISSING if value is None else f"{value * 100:.1f}"


def _fixed(value: Any) -> str:
    return MISSING if value is None else f"{value:.3f}"


def _group(field: Mapping[str, Any], shown: bool) -> dict[str, Any]:
    """One row's figures of the annotations with (`shown`) or without a suggestion."""
    model = field.get("model_shown" if shown else "model_not_shown") or {}
    among = field.get("among_shown" if shown else "among_not_shown") or {}
    return {
        "group": "with a suggestion" if shown else "without a suggestion",
        "n": model.get("n", 0),
        "equal": _share(model.get("equal")),
        "kappa": _fixed(model.get("kappa")),
        "model_why": model.get("reason") or "",
        "alpha": _fixed(among.get("value")),
        "alpha_items": among.get("n_items", 0),
        "alpha_why": among.get("reason") or "",
    }


def suggestion_rows(section: Mapping[str, Any], titles: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per field: kept / shown and the share kept (the anchoring table), then its two groups."""
    rows = []
    for field in section.get("fields") or []:
        shown, kept = field.get("n_shown", 0), field.get("n_kept", 0)
        rows.append(
            {
                "name": field["name"],
                "title": titles.get(field["name"]) or field["name"],
                "level": field.get("level", ""),
                "n_shown": shown,
                "n_kept": kept,
                "n_changed": shown - kept,
                "kept_share": _share(field.get("kept_share")),
                "kept_why": "" if shown else "no suggestion of this field was shown",
                "groups": [_group(field, True), _group(field, False)],
            }
        )
    return rows


def suggestions_context(run: QualityRun, titles: Mapping[str, str]) -> dict[str, Any]:
    """The section's context: empty when no annotation the run keeps was shown a suggestion."""
    section = (run.report or {}).get("suggestions") or {}
    if not section:
        return {}
    return {"model": section.get("model"), "rows": suggestion_rows(section, titles)}
