"""SCDE's columns, quality outcome and released-format rows: what the kind hands the platform.

The measures and rules themselves are `quality.stats.scde` (pure); this module only feeds them
the annotation rows and lays their results out as the platform stores and exports them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from quality.stats import scde as scde_stats

from ..base import Column, QualityOutcome
from ..results import LabelField, column_label
from .answers import candidate_label
from .export import answer_sequence, released_record

PAGE = "passage"
#: per-passage figures shown in the report and written beside each exported passage
ITEM_DIAGNOSTIC_COLUMNS = [
    "n_responses",
    "n_kept",
    "ba",
    "pa",
    "de",
    "mean_seconds",
    "median_seconds",
    *(f"difficulty_{level}" for level in scde_stats.DIFFICULTY_LEVELS),
]
#: the kept workers' answers per passage (for the released-format export; not a report column)
WORKER_ANSWERS = "worker_answers"
INCOMPLETE = "incomplete: the passage was never submitted"


def _choices(answers: Mapping[str, Any]) -> dict[str, int] | None:
    return (answers.get(PAGE) or {}).get("choices")


def _score(payload: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
    """ba, pa, de of the response, or {} before it is answered or when the passage has no gold."""
    gold, choices = payload.get("gold"), _choices(answers)
    if not gold or choices is None:
        return {}
    return scde_stats.score_passage(gold, choices).row()


def _sequence_json(answers: Mapping[str, Any]) -> str | None:
    choices = _choices(answers)
    return None if choices is None else json.dumps(answer_sequence(choices))


COLUMNS = (
    Column("ba", lambda payload, answers: _score(payload, answers).get("ba"), payload_keys=("gold",)),
    Column("pa", lambda payload, answers: _score(payload, answers).get("pa"), payload_keys=("gold",)),
    Column("de", lambda payload, answers: _score(payload, answers).get("de"), payload_keys=("gold",)),
    # what the page reported; the platform's own `seconds` column is the server's figure
    Column.answer("visible_seconds", PAGE, "visible_seconds"),
    Column.answer("difficulty", PAGE, "difficulty"),
    Column("answer_sequence", lambda payload, answers: _sequence_json(answers)),
)
ITEM_TEXT_COLUMNS = (
    Column(
        "passage_text",
        lambda payload, answers: " ".join(f"<{p['blank']}>" if "blank" in p else p["text"] for p in payload["pieces"]),
        payload_keys=("pieces",),
    ),
    Column(
        "candidates_text",
        lambda payload, answers: "\n".join(
            f"{candidate_label(i)}. {text}" for i, text in enumerate(payload["candidates"])
        ),
        payload_keys=("candidates",),
    ),
)


def passage_seconds(frame: pd.DataFrame) -> pd.Series:
    """The time each response took: the visible time the page reported, capped by the server's
    time from first view to submission (visible time cannot exceed it); the server's time when
    the page reported nothing; NaN when neither is known."""

    def numbers(name: str) -> pd.Series:
        column = frame[name] if name in frame else pd.Series(np.nan, index=frame.index)
        return pd.to_numeric(column, errors="coerce").astype(float)

    server, visible = numbers("seconds"), numbers("visible_seconds")
    return visible.where(visible.isna() | server.isna(), np.fmin(visible, server)).fillna(server)


def quality_outcome(frame: pd.DataFrame, settings: Mapping[str, Any]) -> QualityOutcome:
    """Drop too-fast and low-BA workers (with all their passages) and unsubmitted passages, each
    with its reasons; per-worker and per-passage BA/PA/DE; the study beside the paper's humans."""
    frame = frame.assign(passage_seconds=passage_seconds(frame))
    completed = (
        frame["completed"].fillna(False).astype(bool) if "completed" in frame else pd.Series(True, index=frame.index)
    )
    done = frame[completed]
    selection = scde_stats.select_workers(
        done.assign(seconds=done["passage_seconds"]),
        min_seconds=float(settings["min_seconds"]),
        min_ba=float(settings["min_ba"]),
    )
    ids = frame["response_id"]
    chosen = ids.map(selection.responses["keep"])
    responses = pd.DataFrame(
        {
            "keep": chosen.fillna(False).astype(bool).to_numpy(),
            "reasons": [
                list(r) if isinstance(r, list) else [INCOMPLETE] for r in ids.map(selection.responses["reasons"])
            ],
            "passage_seconds": frame["passage_seconds"].to_numpy(),
        },
        index=pd.Index(ids, name="response_id"),
    )
    kept = done[done["response_id"].map(selection.responses["keep"]).fillna(False).astype(bool)]
    return QualityOutcome(
        responses=responses,
        annotators=selection.workers,
        items=_items(done, kept),
        summary={**selection.summary, **_study_summary(kept)},
    )


def kept_items(frame: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """The passages' figures and workers' answers on the responses the run finally keeps (`keep`:
    bool per response id, after the researcher's verdicts and the generic rules)."""
    frame = frame.assign(passage_seconds=passage_seconds(frame))
    done = frame[frame["completed"].fillna(False).astype(bool)] if "completed" in frame else frame
    return _items(done, done[done["response_id"].map(keep).fillna(False).astype(bool)])


def _items(done: pd.DataFrame, kept: pd.DataFrame) -> pd.DataFrame:
    """Per passage: its figures over the kept responses, and the kept workers' answers."""
    scored = kept.assign(seconds=kept["passage_seconds"])
    items = scde_stats.passage_metrics(scored).reindex(pd.Index(done["item_id"].unique(), name="item_id"))
    items["n_responses"] = done.groupby("item_id").size().reindex(items.index).fillna(0).astype(int)
    items["n_kept"] = kept.groupby("item_id").size().reindex(items.index).fillna(0).astype(int)
    for level in scde_stats.DIFFICULTY_LEVELS:
        items[f"difficulty_{level}"] = items[f"difficulty_{level}"].fillna(0).astype(int)
    who = kept["annotator"] if "annotator" in kept else kept["annotator_id"]
    answers: dict[Any, list[dict[str, Any]]] = {item: [] for item in items.index}
    for item, worker, sequence in zip(kept["item_id"], who, kept["answer_sequence"], strict=True):
        if sequence is not None:
            answers[item].append({"annotator": str(worker), "answer_sequence": json.loads(sequence)})
    items = items[ITEM_DIAGNOSTIC_COLUMNS].copy()
    items[WORKER_ANSWERS] = [answers[item] for item in items.index]
    return items


def _study_summary(kept: pd.DataFrame) -> dict[str, Any]:
    """The kept responses' overall figures beside the paper's human row, key by key, so the
    report's summary table reads them side by side; shares as `share_` keys (shown in %)."""
    paper = scde_stats.PAPER_HUMAN
    summary = scde_stats.summarize(kept.assign(seconds=kept["passage_seconds"]))
    figures: dict[str, Any] = {
        "passages_answered": summary.passages,
        "ba": summary.ba,
        "paper_human_ba": paper.ba,
        "pa": summary.pa,
        "paper_human_pa": paper.pa,
        "de": summary.de,
        "paper_human_de": paper.de,
        "mean_seconds_per_passage": summary.mean_seconds,
        "paper_human_seconds_per_passage": paper.seconds_per_passage,
        "median_seconds_per_passage": summary.median_seconds,
    }
    papers_shares = dict(paper.difficulty)
    for level, share in summary.difficulty["share"].items():
        figures[f"share_{level}"] = None if pd.isna(share) else float(share)
        figures[f"share_{level}_paper_human"] = papers_shares.get(level)
    figures["reference"] = paper.source
    return figures


def export_row(payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
    """The passage as released (gold `answer_sequence` when labeled) plus its human figures."""
    row = released_record(payload)
    for column in ITEM_DIAGNOSTIC_COLUMNS:
        row[f"human_{column}"] = None if diagnostics is None else _plain(diagnostics.get(column))
    return row


def _plain(value: Any) -> Any:
    """A numpy scalar as Python's own (diagnostics straight from a run are numpy; NaN is None)."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and np.isnan(value) else value


def worker_answers_row(payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
    """The passage as released, without the gold, and each kept worker's `answer_sequence` in
    the released terms ([blank, candidate id], ids from 0): score them as a model's output."""
    record = {key: value for key, value in released_record(payload).items() if key != "answer_sequence"}
    record["worker_answer_sequences"] = list((diagnostics or {}).get(WORKER_ANSWERS) or [])
    return record


#: the study's blanks (SCDE's passages have five) as agreement fields, and the difficulty rating
BLANKS_AGREED = 5


def _blank(number: int) -> Callable[[Mapping[str, Any]], Any]:
    """The candidate a worker chose for blank `number`, read from the row's answer_sequence."""

    def value(row: Mapping[str, Any]) -> Any:
        sequence = row.get("answer_sequence")
        if not sequence:
            return None
        return dict((blank, choice) for blank, choice in json.loads(sequence)).get(number)

    return value


LABEL_FIELDS = (
    *(LabelField(f"blank_{n}", "nominal", _blank(n), title=f"blank {n}") for n in range(1, BLANKS_AGREED + 1)),
    LabelField(
        "difficulty", "ordinal", column_label("difficulty"), order=scde_stats.DIFFICULTY_LEVELS, title="difficulty"
    ),
)
