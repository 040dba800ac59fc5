"""The report's "Time on task" section: the answers the too-fast rule flagged (the whole answer,
or one of its pages) with their times, each annotator's figures, and what each drop setting
decided. Read from the run's report (`quality.speed` writes it); empty when the rule was off."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality.report.format import format_figure

#: a drop setting's rule in words, for the decisions table
RULES = {
    "drop_too_fast": "drop_too_fast: answers flagged too fast are dropped",
    "max_too_fast_share": "max_too_fast_share: annotators with more of their answers flagged are dropped",
}


def time_on_task_context(section: Mapping[str, Any], parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Rows ready to print: flagged answers (as many as the run kept, with the total), annotators,
    decisions by rule, and the thresholds that were set. `section`: the run's "time_on_task"."""
    if not section:
        return {}
    flagged = [
        {
            "response_id": row["response_id"],
            "item_id": row["item_id"],
            "item": row["item"],
            "annotator": row["annotator"],
            "page": row["page"] or "(whole answer)",
            "seconds": "unknown (saved untimed)" if row.get("untimed") else format_figure(row["seconds"], "seconds"),
            "threshold": format_figure(row["threshold"], "seconds"),
            "dropped": row["dropped"],
        }
        for row in section.get("flagged", [])
    ]
    annotators = [
        {
            "annotator": row["annotator"],
            "timed": row["timed"],
            "flagged": row["flagged"],
            "share": format_figure(row["share"], "share"),
            "median_seconds": format_figure(row["median_seconds"], "seconds"),
            "dropped": row["dropped"],
        }
        for row in section.get("annotators", [])
    ]
    decisions = [
        {"rule": RULES.get(row["rule"], row["rule"]), "annotators": row["annotators"], "answers": row["answers"]}
        for row in section.get("decisions", [])
    ]
    keys = ("too_fast_seconds", "too_fast_page_seconds", "too_fast_median_share", "drop_too_fast", "max_too_fast_share")
    settings = [(key, parameters.get(key)) for key in keys if parameters.get(key) not in (None, "", False)]
    return {
        "flagged": flagged,
        "n_flagged": section.get("n_flagged", len(flagged)),
        "n_answers_flagged": section.get("n_answers_flagged", 0),
        "shown_all": len(flagged) >= section.get("n_flagged", len(flagged)),
        "annotators": annotators,
        "decisions": decisions,
        "settings": settings,
    }
