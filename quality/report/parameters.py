"""The run's settings as the report prints them: one row per named setting with its value and
whether it is the kind's default, instead of the stored `name = value; ...` mapping."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotation.kinds import TaskKind
from quality.report.format import style_of

#: settings whose report label is better than the one made from the key
LABELS = {
    "annotator_kappa_field": "Field the κ rule judges",
    "drop_too_fast": "Rule: drop answers flagged too fast",
    "aggregation_method": "Aggregation method",
    "bootstrap_rounds": "Bootstrap rounds of the intervals",
    "easy_must_be_correct": "Rule: easy items must be answered right",
    "require_spans": "Rule: evidence spans required",
    "consistency_items": "Consistency items",
    "calibration_threshold": "Rule: calibration threshold",
    "exclusion_sd": "Rule: exclusion beyond this many standard deviations",
    "leave_one_out": "Leave-one-out correlation rule",
    "leave_one_out_share": "Leave-one-out: share of annotators dropped",
    "min_shared_items": "Fewest items shared with another annotator",
    "engagement_max_flagged_share": "Engagement: most flagged answers an annotator may have",
    "engagement_repeat_share": "Engagement: share of repeated words that flags an answer",
    "min_seconds": "Rule: minimum median seconds per passage",
    "min_ba": "Rule: minimum BA of a worker",
}
#: settings whose value names a label field
FIELD_VALUED = ("annotator_kappa_field",)
NOT_SET = "not set (the rule is off)"


def _value(key: str, value: Any, unit: str, titles: Mapping[str, str]) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "the main label field" if key in FIELD_VALUED else NOT_SET
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key in FIELD_VALUED:
        return titles.get(str(value), str(value))
    if isinstance(value, Mapping):
        return "; ".join(f"{titles.get(str(k), k)}: {v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float) and unit == "share":
        return f"{value * 100:g} %"
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value)


def parameter_rows(parameters: Mapping[str, Any], kind: TaskKind, titles: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per setting of the run: `label`, `key`, `value` (printed), `default` (True: the kind's
    default) and `default_value` (printed) where it was changed."""
    defaults, styles = kind.settings_for(None), kind.figure_styles()
    rows = []
    for key, value in parameters.items():
        style = style_of(key, styles)
        printed = _value(key, value, style.unit, titles)
        is_default = key in defaults and defaults[key] == value
        rows.append(
            {
                "key": key,
                "label": LABELS.get(key) or style.label,
                "value": printed,
                "default": is_default,
                "default_value": ""
                if is_default or key not in defaults
                else _value(key, defaults[key], style.unit, titles),
            }
        )
    return rows
