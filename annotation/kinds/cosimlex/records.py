"""CoSimLex's released files: the release file `cosimlex_{lang}.csv` and the SemEval-2020 Task 3
kit input `data_{lang}.tsv` read into items, and the context's `<strong>` target marks."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

from ..base import ImportProblem, ParsedItem
from ..formats import text_lines

PAIR_COLUMNS = ["word1", "word2", "context1", "context2"]
FORM_COLUMNS = ["word1_context1", "word2_context1", "word1_context2", "word2_context2"]
SCORE_COLUMNS = ["sim1", "sim2", "stdev1", "stdev2", "pvalue"]
#: the release file `cosimlex_{lang}.csv` (tab-separated despite its name)
RELEASE_COLUMNS = PAIR_COLUMNS + SCORE_COLUMNS + FORM_COLUMNS
#: the SemEval evaluation / practice kit input `data_{lang}.tsv`
KIT_COLUMNS = PAIR_COLUMNS + FORM_COLUMNS
KIT_GOLD_COLUMNS = ["sim_context1", "sim_context2", "change"]
RATING_SCALE = range(0, 7)
SCALED_MAX = 10.0

_STRONG = re.compile(r"<strong>(.*?)</strong>", re.DOTALL)


def context_segments(context: str) -> list[tuple[str, bool]]:
    """The context as (text, is_target) runs; the `<strong>` marks become flags, all else is text."""
    segments: list[tuple[str, bool]] = []
    position = 0
    for match in _STRONG.finditer(context):
        if match.start() > position:
            segments.append((context[position : match.start()], False))
        segments.append((match.group(1), True))
        position = match.end()
    if position < len(context):
        segments.append((context[position:], False))
    return segments


def plain_context(context: str) -> str:
    """The context with its target marks removed: what page 1 shows (nothing highlighted)."""
    return "".join(text for text, _target in context_segments(context))


def format_score(value: Any) -> str:
    """Three significant digits, positional, as the release writes its scores (0.333, 10, 0.00000117)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return np.format_float_positional(float(value), precision=3, unique=False, fractional=False, trim="-")


def parse_records(text: str) -> list[ParsedItem]:
    """A release file or a kit input file, each row as two items (one per context) tied by the pair."""
    lines = text_lines(text)
    header = lines[0].split("\t") if lines else []
    if header == RELEASE_COLUMNS:
        fmt = "release"
    elif header == KIT_COLUMNS:
        fmt = "kit"
    else:
        raise ImportProblem(
            "the first line must be the tab-separated header of a CoSimLex release file ("
            + " ".join(RELEASE_COLUMNS)
            + ") or of a SemEval kit input file ("
            + " ".join(KIT_COLUMNS)
            + f"); got {(lines[0] if lines else '')[:200]!r}",
            line=1,
        )
    items: list[ParsedItem] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        row = _row(line, header, number)
        items.extend(_items(row, fmt, number))
    return items


def _row(line: str, header: list[str], number: int) -> dict[str, str]:
    values = line.split("\t")
    if len(values) != len(header):
        missing = header[len(values)] if len(values) < len(header) else None
        raise ImportProblem(
            f"expected {len(header)} tab-separated fields, found {len(values)}",
            line=number,
            field=missing,
        )
    row = dict(zip(header, values))
    for column in PAIR_COLUMNS + FORM_COLUMNS:
        if not row[column].strip():
            raise ImportProblem("must not be empty", line=number, field=column)
    for column in ("context1", "context2"):
        context = row[column]
        if context.count("<strong>") != context.count("</strong>") or not _STRONG.search(context):
            raise ImportProblem("the target words must be marked with <strong>…</strong>", line=number, field=column)
    for column in SCORE_COLUMNS:
        if column in row:
            try:
                value = float(row[column])
            except ValueError:
                raise ImportProblem(f"must be a number, got {row[column]!r}", line=number, field=column) from None
            if not np.isfinite(value) or value < 0:
                raise ImportProblem(f"must be a non-negative number, got {row[column]!r}", line=number, field=column)
    return row


def _items(row: dict[str, str], fmt: str, number: int) -> list[ParsedItem]:
    digest = hashlib.sha1((row["context1"] + "\t" + row["context2"]).encode("utf-8")).hexdigest()[:10]
    pair = f"{row['word1'][:60]}|{row['word2'][:60]}|{digest}"
    released = {column: row[column] for column in PAIR_COLUMNS + FORM_COLUMNS}
    reference = {column: row[column] for column in SCORE_COLUMNS if column in row}
    return [
        ParsedItem(
            external_id=f"{pair}|{n}",
            payload={**released, "reference": reference, "pair": pair, "context": n, "format": fmt},
            line=number,
            group_key=pair,
        )
        for n in (1, 2)
    ]
