"""The SemEval-2020 Task 3 scorer (Graded Word Similarity in Context), as the organisers ran it.

Subtask 1 (change): uncentered Pearson sum(x*y)/sqrt(sum(x^2)*sum(y^2)) between predicted and gold
`change`. Subtask 2 (ratings): the columns sim_context1, sim_context2 interleaved into one vector
[c1_1, c2_1, c1_2, c2_2, ...] for prediction and gold; score = statistics.harmonic_mean of scipy's
Pearson and Spearman. The overall score of a subtask is the plain mean of the per-language scores.

Negative correlations: statistics.harmonic_mean raises StatisticsError (a ValueError) for a negative
value, so the organisers' script stopped on a subtask-2 submission anticorrelated with the gold. We
mirror it: score_subtask2 raises the same error rather than inventing a score the task never gave.
A correlation of exactly 0 gives 0; a constant column gives NaN (scipy), and so does the score.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

SUBTASK1_COLUMNS = ("change",)
SUBTASK2_COLUMNS = ("sim_context1", "sim_context2")
GOLD_COLUMNS = ("sim_context1", "sim_context2", "change")


class KitFormatError(ValueError):
    """A kit or submission file that cannot be scored; the message names the line and column."""


def read_kit_table(source: str | bytes | IO, required_columns: Sequence[str]) -> pd.DataFrame:
    """Read a tab-separated kit file with a header (CRLF or LF, optional UTF-8 BOM, no quoting).
    `source` is the text itself, its bytes, or an open text/binary file. The required columns come
    back as floats, the others as strings. Line numbers in errors count the header as line 1."""
    text = _text(source)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if not lines or not lines[0].strip():
        raise KitFormatError("line 1: the header is missing (the file is empty)")
    header = lines[0].split("\t")
    missing = [c for c in required_columns if c not in header]
    if missing:
        names, found = ", ".join(map(repr, missing)), ", ".join(map(repr, header))
        raise KitFormatError(f"line 1: missing column {names} (the header has {found})")
    records = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise KitFormatError(f"line {number}: expected {len(header)} tab-separated fields, found {len(fields)}")
        records.append(fields)
    table = pd.DataFrame(records, columns=header, dtype=object)
    for column in required_columns:
        table[column] = [_number(value, number, column) for number, value in enumerate(table[column], start=2)]
        table[column] = table[column].astype(float)
    return table


def _text(source: str | bytes | IO) -> str:
    raw = source if isinstance(source, str | bytes) else source.read()
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise KitFormatError(f"the file is not UTF-8 text ({error})") from None
    return raw.removeprefix("\ufeff")


def _number(value: str, line: int, column: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise KitFormatError(f"line {line}, column {column!r}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise KitFormatError(f"line {line}, column {column!r}: {value!r} is not a finite number")
    return number


def uncentered_pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation measured from zero rather than from the means (cosine similarity):
    for `change`, the sign of a predicted change matters, not only its ordering."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return float(np.sum(a * b) / np.sqrt(np.sum(a * a) * np.sum(b * b)))


def _same_length(prediction: pd.DataFrame, gold: pd.DataFrame, subtask: int) -> None:
    if len(prediction) != len(gold):
        raise KitFormatError(
            f"subtask {subtask}: the prediction has {len(prediction)} rows but the gold has {len(gold)}; "
            "rows must line up one to one with the kit's data file"
        )


def _columns(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise KitFormatError(f"{what}: missing column {', '.join(map(repr, missing))}")


def score_subtask1(prediction: pd.DataFrame, gold: pd.DataFrame) -> float:
    """Uncentered Pearson between the predicted and the gold `change` columns."""
    _columns(prediction, SUBTASK1_COLUMNS, "prediction")
    _columns(gold, ("change",), "gold")
    _same_length(prediction, gold, 1)
    return uncentered_pearson(prediction["change"].astype(float), gold["change"].astype(float))


def interleave(table: pd.DataFrame) -> np.ndarray:
    """[c1_1, c2_1, c1_2, c2_2, ...]: each pair's two contexts side by side, as the scorer reads them."""
    return np.column_stack([table["sim_context1"].astype(float), table["sim_context2"].astype(float)]).ravel()


def subtask2_correlations(prediction: pd.DataFrame, gold: pd.DataFrame) -> tuple[float, float]:
    """Pearson and Spearman of the interleaved predicted and gold ratings."""
    _columns(prediction, SUBTASK2_COLUMNS, "prediction")
    _columns(gold, SUBTASK2_COLUMNS, "gold")
    _same_length(prediction, gold, 2)
    x, y = interleave(prediction), interleave(gold)
    return float(pearsonr(x, y).statistic), float(spearmanr(x, y).statistic)


def score_subtask2(prediction: pd.DataFrame, gold: pd.DataFrame) -> float:
    """Harmonic mean of Pearson and Spearman over the interleaved ratings, through
    statistics.harmonic_mean as the organisers did: a negative correlation raises
    statistics.StatisticsError (see the module docstring)."""
    pearson, spearman = subtask2_correlations(prediction, gold)
    return float(statistics.harmonic_mean([pearson, spearman]))


def overall_score(per_language: dict[str, float]) -> float:
    """The task's overall score of a subtask: the plain mean of the per-language scores."""
    return float(statistics.mean(per_language.values()))


def score_submission(
    gold: pd.DataFrame,
    *,
    subtask1: str | bytes | IO | None = None,
    subtask2: str | bytes | IO | None = None,
) -> dict[str, Any]:
    """Score one language's submission files (results_subtask1 / results_subtask2) against gold.
    A negative subtask-2 correlation gives no harmonic mean (None, with a note) rather than the
    organisers' error, so subtask 1 of the same call is still reported.

    Raises KitFormatError naming the file, line and column of a malformed file, or a row-count mismatch.
    """
    if subtask1 is None and subtask2 is None:
        raise KitFormatError("give at least one submission file (subtask 1 and/or subtask 2)")
    scores: dict[str, Any] = {"pairs": int(len(gold))}
    if subtask1 is not None:
        with _naming("subtask 1 file"):
            scores["subtask1"] = {
                "uncentered_pearson": score_subtask1(read_kit_table(subtask1, SUBTASK1_COLUMNS), gold)
            }
    if subtask2 is not None:
        with _naming("subtask 2 file"):
            pearson, spearman = subtask2_correlations(read_kit_table(subtask2, SUBTASK2_COLUMNS), gold)
        harmonic = float(statistics.harmonic_mean([pearson, spearman])) if pearson >= 0 and spearman >= 0 else None
        scores["subtask2"] = {
            "pearson": pearson,
            "spearman": spearman,
            "harmonic_mean": harmonic,
            **(
                {}
                if harmonic is not None
                else {"note": "a negative correlation has no harmonic mean (the organisers' scorer stops here)"}
            ),
        }
    return scores


def gold_from_file(source: str | bytes | IO) -> pd.DataFrame:
    """A kit gold file (sim_context1, sim_context2, change), its errors named as the gold file's."""
    with _naming("gold file"):
        return read_kit_table(source, GOLD_COLUMNS)


@contextmanager
def _naming(what: str) -> Iterator[None]:
    try:
        yield
    except KitFormatError as exc:
        raise KitFormatError(f"{what}: {exc}") from None
