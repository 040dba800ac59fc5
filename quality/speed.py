"""The too-fast rule a quality run adds to every kind's own rules (off by default): answers
below a time threshold are flagged with their times; the settings may drop them, and drop the
annotators with more than a share of their answers flagged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from annotation.kinds import QualityOutcome
from quality.stats.speed import flag_too_fast, too_fast_shares


def _number(value: Any) -> float | None:
    return None if value is None or value == "" else float(value)


def _reason(seconds: float, threshold: float) -> str:
    return f"answered in {seconds:.1f} s, below the too-fast threshold of {threshold:.1f} s"


def apply_speed_rule(frame: pd.DataFrame, outcome: QualityOutcome, settings: Mapping[str, Any]) -> QualityOutcome:
    """The kind's outcome with each answer's `seconds`, `too_fast_threshold` and `too_fast`
    flag (stored with the run's decisions and exported), the annotators' `too_fast_share`, and
    the drops `drop_too_fast` and `max_too_fast_share` ask for, each with its reason."""
    min_seconds, share = _number(settings.get("too_fast_seconds")), _number(settings.get("too_fast_median_share"))
    if min_seconds is None and share is None:
        return outcome
    flags = flag_too_fast(frame, min_seconds=min_seconds, median_share=share)
    responses = outcome.responses.copy()
    responses["reasons"] = [list(r) for r in responses["reasons"]]
    mine = flags.reindex(responses.index)
    responses["seconds"] = mine["seconds"]
    responses["too_fast_threshold"] = mine["threshold"].round(3)
    responses["too_fast"] = mine["too_fast"].fillna(False).astype(bool)
    dropped_answers = 0
    if settings.get("drop_too_fast"):
        for rid in responses.index[responses["too_fast"]]:
            responses.at[rid, "reasons"] = [
                *responses.at[rid, "reasons"],
                _reason(responses.at[rid, "seconds"], responses.at[rid, "too_fast_threshold"]),
            ]
            responses.at[rid, "keep"] = False
            dropped_answers += 1
    shares = too_fast_shares(frame, flags)
    annotators = outcome.annotators.copy()
    annotators["too_fast_share"] = shares["share"].reindex(annotators.index)
    annotators["reasons"] = [list(r) for r in annotators["reasons"]]
    max_share = _number(settings.get("max_too_fast_share"))
    dropped_people: dict[Any, str] = {}
    if max_share is not None:
        for who, row in shares.iterrows():
            if who in annotators.index and row["timed"] and row["share"] > max_share:
                dropped_people[who] = (
                    f"{int(row['fast'])} of {int(row['timed'])} answers too fast "
                    f"({row['share']:.0%}, above the maximum of {max_share:.0%})"
                )
    for who, reason in dropped_people.items():
        annotators.at[who, "reasons"] = [*annotators.at[who, "reasons"], reason]
        annotators.at[who, "keep"] = False
    owner = frame.set_index("response_id")["annotator_id"].reindex(responses.index)
    for rid, who in owner.items():
        if who in dropped_people:
            responses.at[rid, "reasons"] = [*responses.at[rid, "reasons"], "annotator dropped: " + dropped_people[who]]
            responses.at[rid, "keep"] = False
    summary = {
        **outcome.summary,
        "flagged_too_fast": int(responses["too_fast"].sum()),
        "dropped_too_fast": dropped_answers,
        "dropped_too_fast_annotator": int(owner.isin(list(dropped_people)).sum()),
    }
    for key, table in (("responses_kept", responses), ("annotators_kept", annotators)):
        if key in summary:
            summary[key] = int(table["keep"].sum())
    return QualityOutcome(responses=responses, annotators=annotators, items=outcome.items, summary=summary)
