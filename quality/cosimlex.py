"""CoSimLex's dataset-level reports: the paper's Table 1 for a release file or for a project's
cleaned data, and scoring a system's SemEval-2020 Task 3 submission against either.

Pure figures come from `quality.stats`; this module only reads files and stored runs.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import pandas as pd

from annotation.kinds import ImportProblem, get_kind
from annotation.models import Item, Project
from quality.models import ItemResult, QualityRun
from quality.selectors import latest_run
from quality.stats.cosimlex import dataset_summary
from quality.stats.semeval_scoring import (
    GOLD_COLUMNS,
    SUBTASK1_COLUMNS,
    SUBTASK2_COLUMNS,
    KitFormatError,
    read_kit_table,
    score_subtask1,
    subtask2_correlations,
)

TABLE1_COLUMNS = [
    ("n_pairs", "pairs"),
    ("mean_similarity", "mean similarity"),
    ("mean_stdev", "mean std. dev."),
    ("mean_abs_change", "mean |change|"),
    ("share_p_below_0_1", "p < 0.1"),
    ("share_p_below_0_05", "p < 0.05"),
]


class NoData(Exception):
    """There is nothing to summarize or score against yet; the message says what is missing."""


def release_file_summary(text: str) -> dict[str, Any]:
    """Table 1 of a file in the CoSimLex release format (its own released scores)."""
    parsed = get_kind("cosimlex").parse(text)
    references = [item.payload["reference"] for item in parsed if item.payload["context"] == 1]
    if not references or not references[0]:
        raise ImportProblem("this is a kit input file without scores; Table 1 needs a release file (cosimlex_{lang}.csv)")
    return dataset_summary(pd.DataFrame(references))


def project_pairs(project: Project, run: QualityRun | None = None) -> pd.DataFrame:
    """One row per pair (import order) with the run's scores: sim_context1, sim_context2,
    stdev_context1, stdev_context2, change, pvalue, pvalue_release (NaN where a context has no kept rating)."""
    run = run or latest_run(project)
    if run is None:
        raise NoData("the project has no finished quality run yet: run quality first")
    firsts = Item.objects.filter(project=project, payload__context=1).order_by("id").values_list("id", "external_id")
    diagnostics = dict(ItemResult.objects.filter(run=run).values_list("item_id", "diagnostics"))
    rows = [{"external_id": ext, **(diagnostics.get(item_id) or {})} for item_id, ext in firsts]
    if not rows:
        raise NoData("the project has no CoSimLex items")
    columns = ["external_id", "sim_context1", "sim_context2", "stdev_context1", "stdev_context2", "change", "pvalue", "pvalue_release"]
    return pd.DataFrame(rows).reindex(columns=columns).astype({c: float for c in columns[1:]})


def project_summary(project: Project, run: QualityRun | None = None) -> dict[str, Any]:
    """Table 1 of a project's cleaned data, as the quality run stored it in its summary (its p
    shares use the release's p convention, as the paper's do)."""
    run = run or latest_run(project)
    if run is None:
        raise NoData("the project has no finished quality run yet: run quality first")
    summary = (run.report or {}).get("summary", {})
    return {key: summary.get(key) for key, _label in TABLE1_COLUMNS}


def project_gold(project: Project) -> pd.DataFrame:
    """The project's cleaned scores as SemEval kit gold: sim_context1, sim_context2, change per pair."""
    pairs = project_pairs(project)
    unrated = pairs[pairs[["sim_context1", "sim_context2"]].isna().any(axis=1)]
    if len(unrated):
        raise NoData(
            f"{len(unrated)} of {len(pairs)} pairs have a context without kept ratings "
            f"(e.g. {unrated['external_id'].iloc[0]}); they cannot serve as gold yet"
        )
    return pairs[list(GOLD_COLUMNS)].reset_index(drop=True)


def score_submission(
    gold: pd.DataFrame,
    *,
    subtask1: str | bytes | IO | None = None,
    subtask2: str | bytes | IO | None = None,
) -> dict[str, Any]:
    """Score one language's submission files (results_subtask1 / results_subtask2) against gold.

    Raises KitFormatError naming the line and column of a malformed file, or a row-count mismatch.
    """
    if subtask1 is None and subtask2 is None:
        raise KitFormatError("give at least one submission file (subtask 1 and/or subtask 2)")
    scores: dict[str, Any] = {"pairs": int(len(gold))}
    if subtask1 is not None:
        with _naming("subtask 1 file"):
            scores["subtask1"] = {"uncentered_pearson": score_subtask1(read_kit_table(subtask1, SUBTASK1_COLUMNS), gold)}
    if subtask2 is not None:
        with _naming("subtask 2 file"):
            pearson, spearman = subtask2_correlations(read_kit_table(subtask2, SUBTASK2_COLUMNS), gold)
        harmonic = (
            float(statistics.harmonic_mean([pearson, spearman])) if pearson >= 0 and spearman >= 0 else None
        )
        scores["subtask2"] = {
            "pearson": pearson,
            "spearman": spearman,
            "harmonic_mean": harmonic,
            **({} if harmonic is not None else {"note": "a negative correlation has no harmonic mean (the organisers' scorer stops here)"}),
        }
    return scores


@contextmanager
def _naming(what: str) -> Iterator[None]:
    try:
        yield
    except KitFormatError as exc:
        raise KitFormatError(f"{what}: {exc}") from None


def gold_from_file(source: str | bytes | IO) -> pd.DataFrame:
    with _naming("gold file"):
        return read_kit_table(source, GOLD_COLUMNS)
