"""Figures as a paper prints them, used by every place the report shows one (page, download,
run admin): proportions as percentages with one decimal, coefficients (κ, α, ρ) to three
decimals, p-values to three decimals or "< 0.001", counts as integers, seconds to one decimal.
Every key gets a human label: the kind's own (`TaskKind.figure_styles`), else the generic ones
here, else one made from the key."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from annotation.kinds import FigureStyle

MISSING = "—"

GENERIC: dict[str, FigureStyle] = {
    "responses": FigureStyle("Responses", "count"),
    "responses_kept": FigureStyle("Responses kept", "count"),
    "annotators": FigureStyle("Annotators", "count"),
    "annotators_kept": FigureStyle("Annotators kept", "count"),
    "workers": FigureStyle("Workers", "count"),
    "workers_kept": FigureStyle("Workers kept", "count"),
    "n_responses": FigureStyle("Responses", "count"),
    "n_annotations": FigureStyle("Annotations", "count"),
    "n_kept": FigureStyle("Kept", "count"),
    "n_gold": FigureStyle("Items with gold", "count"),
    "accuracy": FigureStyle("Accuracy against gold", "share"),
    "min_accuracy": FigureStyle("Rule: minimum accuracy against gold", "share"),
    "min_annotator_kappa": FigureStyle("Rule: minimum κ against the others' majority", "coefficient"),
    "mean_seconds": FigureStyle("Mean seconds", "seconds"),
    "median_seconds": FigureStyle("Median seconds", "seconds"),
    "seconds": FigureStyle("Seconds", "seconds"),
    "too_fast_threshold": FigureStyle("Too-fast threshold", "seconds"),
    "too_fast": FigureStyle("Too fast", "text"),
    "too_fast_share": FigureStyle("Share of answers too fast", "share"),
    "flagged_too_fast": FigureStyle("Annotations flagged too fast", "count"),
    "flagged_too_fast_page": FigureStyle("Annotations with a page too fast", "count"),
    "too_fast_pages": FigureStyle("Pages too fast", "text"),
    "dropped_too_fast": FigureStyle("Annotations dropped: too fast", "count"),
    "dropped_too_fast_annotator": FigureStyle("Annotations dropped: annotator with too many too fast", "count"),
    "too_fast_seconds": FigureStyle("Rule: too fast below (seconds)", "seconds"),
    "too_fast_page_seconds": FigureStyle("Rule: a page too fast below (seconds)", "text"),
    "too_fast_median_share": FigureStyle("Rule: too fast below this share of the median time", "share"),
    "max_too_fast_share": FigureStyle("Rule: most answers too fast an annotator may have", "share"),
    "checks": FigureStyle("Check items answered", "count"),
    "checks_right": FigureStyle("Check items answered right", "count"),
    "check_accuracy": FigureStyle("Accuracy on check items", "share"),
    "dropped_check_annotator": FigureStyle("Annotations dropped: annotator failed the check items", "count"),
    "min_check_accuracy": FigureStyle("Rule: minimum accuracy on check items", "share"),
    "n_items_vs_majority": FigureStyle("Items compared with the others' majority", "count"),
    "agreement_vs_majority": FigureStyle("Agreement with the others' majority", "share"),
    "kappa_vs_majority": FigureStyle("Cohen's κ against the others' majority", "coefficient"),
    "observed_agreement": FigureStyle("Observed agreement", "share"),
    "reference": FigureStyle("Reference", "text"),
}
_COEFFICIENT = re.compile(r"kappa|alpha|spearman|pearson|rho|correlation")


def style_of(key: str, kind_styles: Mapping[str, FigureStyle]) -> FigureStyle:
    """The kind's style of `key`, else the generic one, else one inferred from the key's words."""
    found = kind_styles.get(key) or GENERIC.get(key)
    if found is not None:
        return found
    label = key.replace("_", " ").strip().capitalize()
    if key.startswith("share") or key.endswith("_share") or "accuracy" in key or "agreement" in key:
        return FigureStyle(label, "share")
    if key.startswith(("n_", "dropped_")) or key.endswith("_count"):
        return FigureStyle(label, "count")
    if "seconds" in key:
        return FigureStyle(label, "seconds")
    if "pvalue" in key or "p_value" in key:
        return FigureStyle(label, "p_value")
    if _COEFFICIENT.search(key):
        return FigureStyle(label, "coefficient")
    return FigureStyle(label, "number")


def format_figure(value: Any, unit: str) -> str:
    """`value` printed in its unit; None, NaN and missing values as '—'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, int | float) or unit == "text":
        return str(value)
    number = float(value)
    if unit == "share":
        return f"{number * 100:.1f} %"
    if unit == "count":
        return str(round(number))
    if unit == "seconds":
        return f"{number:.1f}"
    if unit == "p_value":
        return "< 0.001" if number < 0.001 else f"{number:.3f}"
    if isinstance(value, int):
        return str(value)
    return f"{number:.3f}"


def figure(key: str, value: Any, kind_styles: Mapping[str, FigureStyle]) -> tuple[str, str]:
    """(label, printed value) of one figure."""
    style = style_of(key, kind_styles)
    return style.label, format_figure(value, style.unit)


TITLE_LENGTH = 60


def field_title(name: str, title: str | None) -> str:
    """A label field as the researcher named it (the kind's label, the question's prompt),
    shortened to one line and capitalised; its id only where it has no title."""
    text = " ".join(str(title or name).split())
    if len(text) > TITLE_LENGTH:
        text = text[: TITLE_LENGTH - 1].rstrip() + "…"
    return text[:1].upper() + text[1:]


def field_titles(fields: Any) -> dict[str, str]:
    """{field id: its title} of a kind's `label_fields()`."""
    return {f.name: field_title(f.name, f.title) for f in fields}


def labels(keys: list[str], kind_styles: Mapping[str, FigureStyle]) -> list[str]:
    return [style_of(key, kind_styles).label for key in keys]


def values(keys: list[str], row: Mapping[str, Any], kind_styles: Mapping[str, FigureStyle]) -> list[str]:
    """A row's figures under `keys`, each printed in its unit."""
    return [format_figure(row.get(key), style_of(key, kind_styles).unit) for key in keys]
