"""What a kind declares of its results beside its columns: the label fields agreement and
aggregation are computed on (with the generic agreement rule's settings), and its plots for the
quality report, as data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# --- label fields: what agreement and aggregation are computed on --------------------------
LABEL_LEVELS = ("nominal", "ordinal", "interval", "set")
#: project settings of the generic agreement rule, beside each kind's own: drop annotators whose
#: Cohen's kappa against the others' majority is below `min_annotator_kappa` (None: off), on
#: `annotator_kappa_field` ("": the kind's first label field)
AGREEMENT_SETTINGS: dict[str, Any] = {"min_annotator_kappa": None, "annotator_kappa_field": ""}
#: project settings of the generic too-fast rule (quality.speed), off by default: an answer faster
#: than `too_fast_seconds`, or than `too_fast_median_share` of the median time, is flagged with its
#: time; `too_fast_page_seconds` (a number for every page, or {page slug: seconds}) judges each page
#: the same way (with `too_fast_median_share` of that page's median), an answer flagged when any
#: page is; `drop_too_fast` drops flagged answers, `max_too_fast_share` annotators with more flagged
SPEED_SETTINGS: dict[str, Any] = {
    "too_fast_seconds": None,
    "too_fast_page_seconds": None,
    "too_fast_median_share": None,
    "drop_too_fast": False,
    "max_too_fast_share": None,
}
#: the rules every kind gets beside its own
GENERIC_SETTINGS: dict[str, Any] = {**AGREEMENT_SETTINGS, **SPEED_SETTINGS}


@dataclass(frozen=True)
class LabelField:
    """One label field: `value(row)` reads its label from an annotation row (a mapping of
    `annotation_columns`; None: no label), at a level of measurement; `order` ranks ordinal
    labels that do not sort by themselves (easy < medium < difficult)."""

    name: str
    level: str
    value: Callable[[Mapping[str, Any]], Any]
    order: tuple | None = None
    title: str = ""

    def __post_init__(self) -> None:
        if self.level not in LABEL_LEVELS:
            raise ValueError(f"unknown level {self.level!r} of label field {self.name!r}; known: {LABEL_LEVELS}")


def column_label(column: str) -> Callable[[Mapping[str, Any]], Any]:
    """A `LabelField.value` that is one annotation column as it is."""

    def value(row: Mapping[str, Any]) -> Any:
        return row.get(column)

    return value


@dataclass(frozen=True)
class KindPlot:
    """A plot's data: `chart` 'bar' (x: categories, y: heights), 'scatter' (x, y: points) or
    'hist' (x: values); kinds give data, never drawing code."""

    name: str
    title: str
    chart: str
    x: tuple
    y: tuple = ()
    xlabel: str = ""
    ylabel: str = ""
