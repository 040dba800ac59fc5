"""Dropping annotators after a kind's own rules (the agreement rule, the check-item rule): each
gets its reason, their annotations "annotator dropped: <reason>", and the kept counts follow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from annotation.kinds import QualityOutcome


def drop_annotators(
    frame: pd.DataFrame, outcome: QualityOutcome, annotators: pd.DataFrame, drops: Mapping[Any, str], count_key: str
) -> QualityOutcome:
    """`outcome` with `annotators` (its annotators' table, figures joined) and the `drops`
    ({annotator id: reason}) applied; `count_key` counts the annotations they took along."""
    annotators = annotators.copy()
    annotators["reasons"] = [list(r) for r in annotators["reasons"]]
    for who, reason in drops.items():
        if who in annotators.index:
            annotators.at[who, "reasons"] = [*annotators.at[who, "reasons"], reason]
            annotators.at[who, "keep"] = False
    if not drops:
        return QualityOutcome(
            responses=outcome.responses, annotators=annotators, items=outcome.items, summary=outcome.summary
        )
    responses = outcome.responses.copy()
    responses["reasons"] = [list(r) for r in responses["reasons"]]
    owner = frame.set_index("response_id")["annotator_id"].reindex(responses.index)
    for rid, who in owner.items():
        if who in drops:
            responses.at[rid, "reasons"] = [*responses.at[rid, "reasons"], "annotator dropped: " + drops[who]]
            responses.at[rid, "keep"] = False
    summary = {**outcome.summary, count_key: int(owner.isin(list(drops)).sum())}
    for key, table in (("responses_kept", responses), ("annotators_kept", annotators)):
        if key in summary:
            summary[key] = int(table["keep"].sum())
    return QualityOutcome(responses=responses, annotators=annotators, items=outcome.items, summary=summary)
