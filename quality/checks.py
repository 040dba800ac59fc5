"""The check-item rule a quality run adds to every kind's own rules: each annotator's answers to
the batch's check items (attention and gold items) are counted, an annotator live quality stopped
is dropped with the stop's reason (unless a researcher lifted it), and with `min_check_accuracy`
an annotator whose share of right check answers is lower is dropped too. Without any check
answered or any stop the run is as it was."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from annotation.kinds import QualityOutcome
from quality.drops import drop_annotators

CHECK_COLUMNS = ["checks", "checks_right", "check_accuracy"]


def apply_check_rule(
    frame: pd.DataFrame, outcome: QualityOutcome, checks: pd.DataFrame, settings: Mapping[str, Any]
) -> tuple[QualityOutcome, dict[str, Any] | None]:
    """The outcome with each annotator's check figures and the drops, and the report's "check
    items" section (None when no check was answered and nobody was stopped).

    `checks`: one row per annotator (index annotator_id) with `checks`, `checks_right`,
    `stop_reason` (empty unless live quality stopped them and the stop stands) and `annotator`
    (the external id)."""
    if checks.empty:
        return outcome, None
    minimum = settings.get("min_check_accuracy")
    table = checks.copy()
    table["check_accuracy"] = table["checks_right"] / table["checks"].where(table["checks"] > 0)
    drops: dict[Any, str] = {}
    for who, row in table.iterrows():
        if row["stop_reason"]:
            drops[who] = row["stop_reason"]
        elif minimum is not None and row["checks"] and row["check_accuracy"] < float(minimum):
            drops[who] = (
                f"{int(row['checks_right'])} of {int(row['checks'])} check answers right "
                f"({row['check_accuracy']:.0%}), below the minimum of {float(minimum):.0%}"
            )
    annotators = outcome.annotators.join(table[CHECK_COLUMNS], how="left")
    dropped = drop_annotators(frame, outcome, annotators, drops, "dropped_check_annotator")
    # the rule ran: its count shows, 0 too
    count = dropped.summary.get("dropped_check_annotator", 0)
    dropped = replace(dropped, summary={**dropped.summary, "dropped_check_annotator": count})
    report = {
        "min_check_accuracy": minimum,
        "stopped": int((table["stop_reason"] != "").sum()),
        "dropped": len(drops),
        "annotators": [
            {
                "annotator_id": int(who),
                "annotator": row["annotator"],
                "checks": int(row["checks"]),
                "checks_right": int(row["checks_right"]),
                "check_accuracy": None if pd.isna(row["check_accuracy"]) else round(float(row["check_accuracy"]), 4),
                "dropped": drops.get(who, ""),
            }
            for who, row in table.iterrows()
        ],
    }
    return dropped, report
