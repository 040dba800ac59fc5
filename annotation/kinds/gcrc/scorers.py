"""GCRC's scorer (`Gcrc.scorers()`): a prediction file against a gold file, both in the released
JSON format, as the CCL2022 task's eval.py scores them (`quality.stats.gcrc`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.structured_input import Refused, load_json
from quality.stats.gcrc import GcrcFormatError, items_by_id, score

from ..scoring import ProjectResults, ScoreProblem, Scorer, ScorerOption, Upload

ROWS = (
    ("Task1_Acc", "answer accuracy", "questions"),
    ("Task2_F1", "supporting facts, character F1", "sf_options"),
    ("Task3_Acc", "error reasons, accuracy", "er_options"),
)


def ccl2022(results: ProjectResults | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """eval.py's keys (Task1_Acc, Task2_F1, Task3_Acc, Score) and the counts behind them."""
    try:
        return score(items_by_id(_json(options["pred"]), "PRED"), items_by_id(_json(options["gold"]), "GOLD")).as_dict()
    except GcrcFormatError as exc:
        raise ScoreProblem(str(exc)) from None


def format_scores(figures: Mapping[str, Any]) -> str:
    """One line per task, the overall score, and how many gold questions had no prediction."""
    lines = []
    for key, words, count in ROWS:
        value = figures[key]
        shown = "n/a (the gold file has no such labels)" if value is None else f"{value:.4f} over {figures[count]}"
        lines.append(f"{key:<10} {shown}  ({words})")
    overall = figures["Score"]
    lines.append(f"{'Score':<10} {'n/a' if overall is None else f'{overall:.4f}'}  (mean of the three)")
    if figures["missing"]:
        lines.append(f"{figures['missing']} gold question(s) have no prediction; they score 0.")
    return "\n".join(lines)


def _json(upload: Upload) -> Any:
    """The decoded file; a BOM and CRLF line ends are fine."""
    try:
        return load_json(upload.text())
    except Refused as exc:
        raise ScoreProblem(f"{upload.name}: {exc}") from None


SCORERS = {
    "ccl2022": Scorer(
        description="Score a prediction file against a gold file, both in the released JSON format "
        '({"data": [{id, answer, evidences, error_type, ...}]}), as the CCL2022 task scores: answer '
        "accuracy, supporting-fact character F1, error-reason accuracy and their mean.",
        score=ccl2022,
        options=(
            ScorerOption("pred", "the predictions (released format)", required=True),
            ScorerOption("gold", "the gold labels (released format)", required=True),
        ),
        text=format_scores,
    ),
}
