"""What the report page, the run's admin page and the report download show of a run: headline
figures, the agreement table and the plots, formatted as a paper's table prints them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.kinds import kind_of
from quality.models import QualityRun
from quality.report.format import field_title, field_titles
from quality.report.levels import level_context
from quality.report.parameters import parameter_rows
from quality.report.predictions import predictions_context
from quality.report.suggestions import suggestions_context
from quality.report.time_on_task import time_on_task_context
from quality.selectors import (
    run_aggregation,
    run_agreement,
    run_checks,
    run_headline,
    run_pilot_agreement,
    run_plots,
    run_scores,
    run_spans,
    run_time_on_task,
    run_uncertainty,
)

AGREEMENT_HEADERS = (
    "Field",
    "Level",
    "Items",
    "% agreement",
    "Mean Cohen's κ",
    "Fleiss' κ",
    "Krippendorff's α",
    "α 95 % interval",
)


def _fixed(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def agreement_rows(
    fields: Mapping[str, Mapping[str, Any]], titles: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """One row per field, by its title; a coefficient that does not apply or cannot be computed
    shows '—' with the reason as its note."""
    rows = []
    for name, f in fields.items():
        observed, alpha = f.get("observed") or {}, f.get("alpha") or {}
        cohen, fleiss = f.get("cohen") or {}, f.get("fleiss") or {}
        low, high = alpha.get("low"), alpha.get("high")
        reasons = [observed.get("reason"), cohen.get("reason"), fleiss.get("reason"), alpha.get("reason")]
        # the Spearman figures are for ratings only: not a note worth a row of every other field
        reasons += [why for key, why in (f.get("not_applicable") or {}).items() if key != "spearman"]
        rows.append(
            {
                "name": name,
                "title": (titles or {}).get(name) or field_title(name, f.get("title")),
                "level": f.get("level"),
                "n_items": f.get("n_items"),
                "observed": "—" if observed.get("value") is None else f"{observed['value'] * 100:.1f}",
                "cohen": _fixed(cohen.get("mean")),
                "fleiss": _fixed(fleiss.get("value")),
                "alpha": _fixed(alpha.get("value")),
                "interval": "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]",
                # one note per reason: the coefficients often fail for the same one ("no item has two labels")
                "notes": list(dict.fromkeys(r for r in reasons if r)),
                "why": "; ".join(dict.fromkeys(r for r in reasons if r)) or NOT_COMPUTED,
            }
        )
    return rows


def _interval(low: Any, high: Any) -> str:
    return "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


ONE_ANNOTATOR = "one annotator: no interval"
NOT_COMPUTED = "not computed: too few items with two kept labels"


def uncertainty_rows(
    fields: Mapping[str, Mapping[str, Any]], titles: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Per aggregated field (by its title): its method (and what was asked: "auto" names its
    choice), the mean posterior of the chosen labels, and each annotator's competence with its
    bootstrap interval, the most competent first. A field one annotator labelled has no interval
    (resampling one annotator always draws the same labels): it says so rather than [1, 1]."""
    rows = []
    for name, f in fields.items():
        requested, method = f.get("requested"), f.get("method")
        alone = len(f.get("annotators") or []) == 1
        rows.append(
            {
                "name": name,
                "title": (titles or {}).get(name) or field_title(name, None),
                "method": method if requested in (None, method) else f"{method} ({requested})",
                "n_items": f.get("n_items"),
                "ties": f.get("ties"),
                "mean_posterior": _fixed(f.get("mean_posterior")),
                "rounds": f.get("rounds") or 0,
                "confidence": f"{(f.get('confidence') or 0.95) * 100:g} %",
                "annotators": [
                    {
                        "name": a.get("name"),
                        "n_labels": a.get("n_labels"),
                        "competence": _fixed(a.get("competence")),
                        "interval": ONE_ANNOTATOR if alone else _interval(a.get("low"), a.get("high")),
                    }
                    for a in f.get("annotators") or []
                ],
            }
        )
    return rows


def _rule(rule: str) -> str:
    """A stored rule as a person reads it: runs before the rules were sentences stored their
    numbers as '#'."""
    return rule.replace("#", "…")


def headline_rows(headline: Mapping[str, Any]) -> list[tuple[str, Any]]:
    if not headline:
        return []
    rows = [
        ("Annotators kept / dropped", f"{headline['annotators_kept']} / {headline['annotators_dropped']}"),
        ("Annotations kept / dropped", f"{headline['annotations_kept']} / {headline['annotations_dropped']}"),
    ]
    for who, key in (("Annotators", "annotators_dropped_by_reason"), ("Annotations", "annotations_dropped_by_reason")):
        rows += [(f"{who} dropped: {_rule(rule)}", n) for rule, n in headline.get(key, {}).items()]
    return rows


def run_report_context(run: QualityRun | None) -> dict[str, Any]:
    """Template context of a run's figures (empty for no run)."""
    if run is None:
        return {}
    kind = kind_of(run.project)
    titles = field_titles(kind.label_fields())
    return {
        "parameter_rows": parameter_rows(run.parameters or {}, kind, titles),
        "headline": run_headline(run),
        "headline_rows": headline_rows(run_headline(run)),
        "agreement_headers": AGREEMENT_HEADERS,
        "agreement_rows": agreement_rows(run_agreement(run), titles),
        "pilot_agreement_rows": agreement_rows(run_pilot_agreement(run), titles),
        "aggregation": [
            {"name": name, "title": titles.get(name) or field_title(name, None), **summary}
            for name, summary in run_aggregation(run).items()
        ],
        "uncertainty_rows": uncertainty_rows(run_uncertainty(run), titles),
        "plots": list(run_plots(run).only("name", "title", "position", "note", "svg")),
        "time_on_task": time_on_task_context(run_time_on_task(run), run.parameters or {}),
        "checks": run_checks(run),
        "predictions": predictions_context(run),
        "suggestions": suggestions_context(run, titles),
        **level_context(run_agreement(run), run_scores(run), run_spans(run), titles),
    }


def inline_svg(svg: str) -> str:
    """An SVG document as an element to put inside HTML: the XML declaration and DOCTYPE dropped."""
    return svg[svg.index("<svg") :]
