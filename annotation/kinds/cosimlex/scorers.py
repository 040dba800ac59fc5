"""CoSimLex's reports and scorers (`CoSimLex.scorers()`): the paper's Table 1 of release files
and of a project's cleaned data, and the SemEval-2020 Task 3 scorer of a system's submission
against a kit gold file or a project's cleaned data. The figures come from `quality.stats`."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any

import pandas as pd

from quality.stats.cosimlex import dataset_summary
from quality.stats.semeval_scoring import GOLD_COLUMNS, KitFormatError, gold_from_file, score_submission

from ..base import ImportProblem
from ..scoring import NothingToScore, ProjectResults, ScoreProblem, Scorer, ScorerOption, Upload
from .records import parse_records

TABLE1_COLUMNS = [
    ("n_pairs", "pairs"),
    ("mean_similarity", "mean similarity"),
    ("mean_stdev", "mean std. dev."),
    ("mean_abs_change", "mean |change|"),
    ("share_p_below_0_1", "p < 0.1"),
    ("share_p_below_0_05", "p < 0.05"),
]
PAIR_COLUMNS = [
    "sim_context1",
    "sim_context2",
    "stdev_context1",
    "stdev_context2",
    "change",
    "pvalue",
    "pvalue_release",
]


def release_file_summary(text: str) -> dict[str, Any]:
    """Table 1 of a file in the CoSimLex release format (its own released scores)."""
    parsed = parse_records(text)
    references = [item.payload["reference"] for item in parsed if item.payload["context"] == 1]
    if not references or not references[0]:
        raise ImportProblem(
            "this is a kit input file without scores; Table 1 needs a release file (cosimlex_{lang}.csv)"
        )
    return dataset_summary(pd.DataFrame(references))


def project_pairs(results: ProjectResults) -> pd.DataFrame:
    """One row per pair (import order) with the run's scores: sim_context1, sim_context2,
    stdev_context1, stdev_context2, change, pvalue, pvalue_release (NaN where a context has no kept rating)."""
    rows = [
        {"external_id": item.external_id, **item.diagnostics}
        for item in results.items()
        if item.payload.get("context") == 1
    ]
    if not rows:
        raise NothingToScore("the project has no word pairs")
    return pd.DataFrame(rows).reindex(columns=["external_id", *PAIR_COLUMNS]).astype({c: float for c in PAIR_COLUMNS})


def project_summary(results: ProjectResults) -> dict[str, Any]:
    """Table 1 of a project's cleaned data, as the quality run stored it in its summary (its p
    shares use the release's p convention, as the paper's do)."""
    summary = results.summary()
    return {key: summary.get(key) for key, _label in TABLE1_COLUMNS}


def project_gold(results: ProjectResults) -> pd.DataFrame:
    """The project's cleaned scores as SemEval kit gold: sim_context1, sim_context2, change per pair."""
    pairs = project_pairs(results)
    unrated = pairs[pairs[["sim_context1", "sim_context2"]].isna().any(axis=1)]
    if len(unrated):
        raise NothingToScore(
            f"{len(unrated)} of {len(pairs)} pairs have a context without kept ratings "
            f"(e.g. {unrated['external_id'].iloc[0]}); they cannot serve as gold yet"
        )
    return pairs[list(GOLD_COLUMNS)].reset_index(drop=True)


def table1(results: ProjectResults | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """Table 1 by dataset name: each release file's, then the project's cleaned data's."""
    releases: list[Upload] = options["release"]
    if not releases and results is None:
        raise ScoreProblem("give at least one release file, or name a project")
    rows: dict[str, Any] = {}
    for upload in releases:
        try:
            rows[upload.name] = release_file_summary(upload.text())
        except ImportProblem as exc:
            raise ScoreProblem(f"{upload.name}: {exc}") from None
    if results is not None:
        rows[results.label] = project_summary(results)
    return {name: {key: _number(value) for key, value in summary.items()} for name, summary in rows.items()}


def format_table1(result: Mapping[str, Any]) -> str:
    """A plain-text Table 1: one line per dataset; shares as percentages, as the paper prints them."""
    header = ["dataset", *[label for _, label in TABLE1_COLUMNS]]
    lines = [header]
    for name, summary in result.items():
        cells = [name]
        for key, _ in TABLE1_COLUMNS:
            value = summary.get(key)
            if value is None:
                cells.append("–")
            elif key == "n_pairs":
                cells.append(str(value))
            elif key.startswith("share_"):
                cells.append(f"{value * 100:.0f} %")
            else:
                cells.append(f"{value:.2f}")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)


def semeval(results: ProjectResults | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """A system's submission for one language scored against the gold file, else the project's cleaned data."""
    gold_file: Upload | None = options["gold"]
    if options["subtask1"] is None and options["subtask2"] is None:
        raise ScoreProblem("give at least one submission file: subtask1 and/or subtask2")
    try:
        if gold_file is not None:
            gold = gold_from_file(gold_file.data)
        elif results is not None:
            gold = project_gold(results)
        else:
            raise ScoreProblem("give a kit gold file, or name a project whose cleaned data is the gold")
        return score_submission(gold, subtask1=_data(options["subtask1"]), subtask2=_data(options["subtask2"]))
    except (KitFormatError, statistics.StatisticsError) as exc:
        raise ScoreProblem(str(exc)) from None


def _data(upload: Upload | None) -> bytes | None:
    return None if upload is None else upload.data


def _number(value: Any) -> Any:
    """NaN (a figure without inputs) as None, so the result is JSON."""
    return None if isinstance(value, float) and math.isnan(value) else value


def model_semeval(results: ProjectResults, predicted: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A model's ratings as a SemEval-2020 Task 3 submission (subtask 2: its ratings of the two
    contexts; subtask 1: their change) scored by `semeval` against the project's cleaned data."""
    rated: dict[tuple[Any, Any], float] = {}
    pairs: list[Any] = []  # in import order, as the gold's rows are
    for item in results.items():
        key = (item.payload.get("pair"), item.payload.get("context"))
        if key[1] == 1:
            pairs.append(key[0])
        rating = (predicted.get(item.external_id) or {}).get("rating")
        if rating is not None:
            rated[key] = float(rating)
    missing = [pair for pair in pairs if (pair, 1) not in rated or (pair, 2) not in rated]
    if not pairs or missing:
        raise NothingToScore(
            "the model must rate both contexts of every pair" + (f" (e.g. pair {missing[0]})" if missing else "")
        )
    rows = [(rated[(pair, 1)], rated[(pair, 2)]) for pair in pairs]
    subtask1 = "change\n" + "".join(f"{two - one!r}\n" for one, two in rows)
    subtask2 = "sim_context1\tsim_context2\n" + "".join(f"{one!r}\t{two!r}\n" for one, two in rows)
    files = {
        "subtask1": Upload("model subtask 1", subtask1.encode()),
        "subtask2": Upload("model subtask 2", subtask2.encode()),
    }
    return semeval(results, {**files, "gold": None})


SCORERS = {
    "table1": Scorer(
        description="The CoSimLex paper's Table 1 (pairs, mean similarity, mean standard deviation, mean absolute "
        "change, share of pairs with p < 0.1 and p < 0.05) of release files and of the project's cleaned data "
        "(its latest quality run).",
        score=table1,
        options=(ScorerOption("release", "cosimlex_{lang}.csv release files", many=True),),
        text=format_table1,
    ),
    "semeval2020": Scorer(
        description="Score a system's SemEval-2020 Task 3 submission for one language against a kit gold file or "
        "the project's cleaned data (its latest quality run). Subtask 1: uncentered Pearson of the predicted and "
        "gold change. Subtask 2: harmonic mean of Pearson and Spearman over the interleaved ratings "
        "[c1_1, c2_1, c1_2, ...] (the organisers' scorer).",
        score=semeval,
        options=(
            ScorerOption("subtask1", "results_subtask1_{lang}.tsv: a `change` column"),
            ScorerOption("subtask2", "results_subtask2_{lang}.tsv: `sim_context1` and `sim_context2` columns"),
            ScorerOption(
                "gold",
                "a kit gold file (sim_context1, sim_context2, change); without it the project's "
                "cleaned data is the gold",
            ),
        ),
    ),
}
