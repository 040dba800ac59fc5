"""What a kind declares of its results beside its columns: the label fields agreement and
aggregation are computed on (with the generic agreement rule's settings), and its plots for the
quality report, as data."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quality.stats.uncertainty import METHODS as AGGREGATION_METHODS

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
#: page is; `drop_too_fast` drops flagged answers, `max_too_fast_share` annotators with more flagged;
#: `untimed_saves` (read when a page is saved): a save without its page's valid note of when it was
#: shown is refused ("refuse") or stored with its time unknown and that reason under the page's
#: timing `UNTIMED_KEY` ("suspect"), judged too fast by any too-fast rule that is on
UNTIMED_REFUSE, UNTIMED_SUSPECT = "refuse", "suspect"
UNTIMED_CHOICES = (UNTIMED_REFUSE, UNTIMED_SUSPECT)
UNTIMED_KEY = "untimed"
SPEED_SETTINGS: dict[str, Any] = {
    "too_fast_seconds": None,
    "too_fast_page_seconds": None,
    "too_fast_median_share": None,
    "drop_too_fast": False,
    "max_too_fast_share": None,
    "untimed_saves": UNTIMED_REFUSE,
}
#: levels whose fields are aggregated per item (majority, a model): labels without a distance
AGGREGATED_LEVELS = ("nominal", "ordinal")
AUTO = "auto"
#: the upper bound of `bootstrap_rounds`: each round fits the method again
MAX_BOOTSTRAP_ROUNDS = 10_000
#: project settings of the aggregated labels' uncertainty (quality.agreement): the method per
#: nominal/ordinal field (one of `AGGREGATION_METHODS` or "auto", for all fields or as
#: {field: method}), and the bootstrap resamples of the annotators behind each interval (0: off)
AGGREGATION_SETTINGS: dict[str, Any] = {"aggregation_method": AUTO, "bootstrap_rounds": 200}
#: the rules every kind gets beside its own
#: annotators whose share of right answers to the check items is below this are dropped (None: off);
#: annotators stopped by live quality are dropped whatever it is (docs/study-checks.md)
CHECK_SETTINGS: dict[str, Any] = {"min_check_accuracy": None}
GENERIC_SETTINGS: dict[str, Any] = {
    **AGREEMENT_SETTINGS,
    **SPEED_SETTINGS,
    **AGGREGATION_SETTINGS,
    **CHECK_SETTINGS,
}


@dataclass(frozen=True)
class LabelField:
    """One label field: `value(row)` reads its label from an annotation row (a mapping of
    `annotation_columns`; None: no label), at a level of measurement; `order` ranks ordinal
    labels that do not sort by themselves (easy < medium < difficult). A field of marked spans
    (level 'set': its label is the set of spans) also gives `spans(row)`, the spans as stored
    (a list of {start, end, text, label}, offsets in code points of the item's text; None: no
    answer), so a run can vote on characters and compare spans (quality.stats.spans)."""

    name: str
    level: str
    value: Callable[[Mapping[str, Any]], Any]
    order: tuple | None = None
    title: str = ""
    spans: Callable[[Mapping[str, Any]], Any] | None = None

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


def aggregation_methods(value: Any, fields: Sequence[LabelField]) -> dict[str, str]:
    """The method `aggregation_method` asks for on each aggregated (nominal or ordinal) field:
    one value for all, or {field: method} ("auto" for a field it leaves out). Raises ValueError
    naming the known methods or fields: a misspelt method would otherwise aggregate by another."""
    aggregated = [f.name for f in fields if f.level in AGGREGATED_LEVELS]
    known = (AUTO, *AGGREGATION_METHODS)
    if not isinstance(value, str | Mapping):
        raise ValueError("aggregation_method must be a method's name or an object of field -> method")
    named = [value] if isinstance(value, str) else list(value.values())
    wrong = sorted({str(method) for method in named if method not in known})
    if wrong:
        raise ValueError(f"unknown aggregation method(s) {', '.join(wrong)}; known: {', '.join(known)}")
    if isinstance(value, str):
        return dict.fromkeys(aggregated, value)
    levels = {f.name: f.level for f in fields}
    unknown = [str(name) for name in value if name not in levels]
    if unknown:
        raise ValueError(
            f"aggregation_method names unknown field(s) {', '.join(unknown)}; "
            f"aggregated fields: {', '.join(aggregated) or 'none'}"
        )
    other = [f"{name} ({levels[name]})" for name in value if levels[name] not in AGGREGATED_LEVELS]
    if other:
        raise ValueError(
            f"aggregation_method names field(s) that are not aggregated: {', '.join(other)}; "
            f"only nominal and ordinal fields are: {', '.join(aggregated) or 'none'}"
        )
    return {name: value.get(name, AUTO) for name in aggregated}


def bootstrap_rounds(value: Any) -> int:
    """`bootstrap_rounds` as a count (0: no interval); ValueError for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
        raise ValueError("bootstrap_rounds must be a whole number")
    if not 0 <= value <= MAX_BOOTSTRAP_ROUNDS:
        raise ValueError(f"bootstrap_rounds must be between 0 (off) and {MAX_BOOTSTRAP_ROUNDS}")
    return int(value)


def aggregation_settings_problems(settings: Mapping[str, Any], fields: Sequence[LabelField]) -> list[str]:
    """What is wrong with the aggregation settings among `settings` (empty: nothing), for the
    places that validate settings before a run would fail on them."""
    problems = []
    if "aggregation_method" in settings:
        try:
            aggregation_methods(settings["aggregation_method"], fields)
        except ValueError as error:
            problems.append(str(error))
    if "bootstrap_rounds" in settings:
        try:
            bootstrap_rounds(settings["bootstrap_rounds"])
        except ValueError as error:
            problems.append(str(error))
    if settings.get("untimed_saves", UNTIMED_REFUSE) not in UNTIMED_CHOICES:
        problems.append(f"untimed_saves must be one of {', '.join(UNTIMED_CHOICES)}")
    return problems
