"""CoSimLex (SemEval-2020 Task 3): graded word similarity in context.

Each released row (a word pair with two contexts) becomes two items tied by the pair's
`group_key`; an annotator rates only one of them (`exclusive_groups`). Two pages per item, as
in the paper's Appendix A: the context with nothing marked and two words "inspired by it",
then the same context with the targets in bold and a 0-6 similarity rating.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from django import forms
from django.utils.translation import gettext_lazy as _

from quality.stats import cosimlex as cosimlex_stats

from ..base import (
    Column,
    ImportProblem,
    ItemExport,
    KindPlot,
    LabelField,
    Page,
    PageForm,
    ParsedItem,
    QualityOutcome,
    TaskKind,
    column_label,
)
from ..formats import text_lines
from ..registry import register
from ..scoring import Scorer
from .scorers import SCORERS

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


# --- forms ------------------------------------------------------------------------------------
class InspiredWordsForm(PageForm):
    word_1 = forms.CharField(max_length=60, strip=True, label=_("First word"))
    word_2 = forms.CharField(max_length=60, strip=True, label=_("Second word"))


class RatingForm(PageForm):
    rating = forms.TypedChoiceField(
        coerce=int,
        widget=forms.RadioSelect,
        label="",
        choices=[(n, str(n)) for n in RATING_SCALE],
    )


T = "surveys/cosimlex/"
PAGES: tuple[Page, ...] = (
    # Locked: once page 2 has shown the targets, the words "inspired by" the context can no
    # longer be an unprimed reading of it.
    Page("inspired", _("Read the text"), T + "inspired.html", InspiredWordsForm, locks=True),
    Page("rating", _("Rate the similarity"), T + "rating.html", RatingForm),
)

DEFAULT_INSTRUCTIONS = _(
    "You will read short texts. For each text you will first write down two words that the "
    "text brings to mind, and then, on the next page, rate how similar two words of the text "
    "are in the meaning they have in that text.\n\n"
    "Similarity is not the same as relatedness. Two words are similar when they mean nearly "
    "the same thing, as cup and mug, or car and automobile. Words can be strongly related "
    "without being similar: coffee and cup are related (you drink coffee from a cup) but "
    "they are not similar. Rate only the similarity, and judge the words in the meaning they "
    "have in the text you just read.\n\n"
    "The scale goes from 0 (not similar at all) to 6 (extremely similar). Your answers are "
    "saved after every page, so you can stop and come back with the same link."
)


def _reference_sim(payload: Mapping[str, Any]) -> float | None:
    """The released similarity of this context, where the import file had scores."""
    reference = (payload.get("reference") or {}).get(f"sim{payload['context']}")
    return None if reference in (None, "") else float(reference)


@register
class CoSimLex(TaskKind):
    slug = "cosimlex"
    title = "CoSimLex: graded word similarity in context"
    file_format = (
        "CoSimLex release file cosimlex_{lang}.csv (tab-separated, header, targets in <strong>, scores kept as "
        "reference) or SemEval-2020 Task 3 kit input data_{lang}.tsv; each row becomes two items, one per context"
    )
    exclusive_groups = True
    columns = (
        Column.item("pair"),
        Column.item("word1"),
        Column.item("word2"),
        Column.item("context"),
        Column.answer("inspired_word_1", "inspired", "word_1"),
        Column.answer("inspired_word_2", "inspired", "word_2"),
        Column.answer("rating", "rating", "rating"),
        Column(
            "reference_sim", lambda payload, answers: _reference_sim(payload), payload_keys=("reference", "context")
        ),
    )
    item_text_columns = (
        Column(
            "context_text",
            lambda payload, answers: payload[f"context{payload['context']}"],
            payload_keys=("context", "context1", "context2"),
        ),
    )
    default_settings = {
        "consistency_items": [],
        "calibration_threshold": 1.0,
        "exclusion_sd": 1.0,
        "leave_one_out": False,
        "leave_one_out_share": 0.1,
        "min_shared_items": 3,
        "engagement_max_flagged_share": 0.5,
        "engagement_repeat_share": 0.5,
    }
    default_instructions = DEFAULT_INSTRUCTIONS

    # --- import ------------------------------------------------------------------------
    def parse(self, text: str) -> list[ParsedItem]:
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
            row = self._row(line, header, number)
            items.extend(self._items(row, fmt, number))
        return items

    @staticmethod
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
                raise ImportProblem(
                    "the target words must be marked with <strong>…</strong>", line=number, field=column
                )
        for column in SCORE_COLUMNS:
            if column in row:
                try:
                    value = float(row[column])
                except ValueError:
                    raise ImportProblem(f"must be a number, got {row[column]!r}", line=number, field=column) from None
                if not np.isfinite(value) or value < 0:
                    raise ImportProblem(
                        f"must be a non-negative number, got {row[column]!r}", line=number, field=column
                    )
        return row

    @staticmethod
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

    # --- flow --------------------------------------------------------------------------
    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        return PAGES

    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        context = payload[f"context{payload['context']}"]
        if page.slug == "inspired":  # nothing marked, the pair not named: the reading is unprimed
            return {"context_text": plain_context(context)}
        return {
            "segments": context_segments(context),
            "word1": payload["word1"],
            "word2": payload["word2"],
            "scale_low": _("Not similar at all"),
            "scale_high": _("Extremely similar"),
        }

    # --- results -----------------------------------------------------------------------
    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        selection = cosimlex_stats.select_ratings(
            frame,
            consistency_items=list(settings["consistency_items"] or []),
            calibration_threshold=float(settings["calibration_threshold"]),
            exclusion_sd=float(settings["exclusion_sd"]),
            leave_one_out=bool(settings["leave_one_out"]),
            leave_one_out_share=float(settings["leave_one_out_share"]),
            min_shared_items=int(settings["min_shared_items"]),
            engagement_max_flagged_share=float(settings["engagement_max_flagged_share"]),
            engagement_repeat_share=float(settings["engagement_repeat_share"]),
        )
        return QualityOutcome(
            responses=selection.responses,
            annotators=selection.annotators,
            items=selection.items,
            summary=selection.summary,
        )

    def suggested_annotators_per_item(self, language: str) -> int:
        """27 per context for English (crowd), 12 for the other languages (recruited), as in §4.2."""
        return 27 if language == "en" else 12

    def item_diagnostic_columns(self) -> list[str]:
        return list(cosimlex_stats.ITEM_DIAGNOSTIC_COLUMNS)

    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The pair in the release format (same columns, same order, `<strong>` marks kept),
        written once, from its first context, with the scores computed from our cleaned ratings."""
        if payload["context"] != 1:
            return None
        row = {column: payload[column] for column in PAIR_COLUMNS}
        d = diagnostics or {}
        row.update(
            sim1=format_score(d.get("sim_context1")),
            sim2=format_score(d.get("sim_context2")),
            stdev1=format_score(d.get("stdev_context1")),
            stdev2=format_score(d.get("stdev_context2")),
            # the release's p convention (one-sided, see quality.stats.cosimlex.release_pvalue), so
            # the file reads like the published ones; the two-sided p is in the items export
            pvalue=format_score(d.get("pvalue_release")),
        )
        row.update({column: payload[column] for column in FORM_COLUMNS})
        return row

    def scorers(self) -> dict[str, Scorer]:
        return SCORERS

    def item_exports(self) -> dict[str, ItemExport]:
        return {
            "kit_data": ItemExport("pairs as SemEval-2020 Task 3 kit input (data_{lang}.tsv)", self._kit_data_row),
            "kit_gold": ItemExport(
                "our scores as SemEval-2020 Task 3 kit gold (sim_context1, sim_context2, change)", self._kit_gold_row
            ),
        }

    @staticmethod
    def _kit_data_row(payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if payload["context"] != 1:
            return None
        return {column: payload[column] for column in KIT_COLUMNS}

    @staticmethod
    def _kit_gold_row(payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if payload["context"] != 1:
            return None
        d = diagnostics or {}
        return {
            "sim_context1": format_score(d.get("sim_context1")),
            "sim_context2": format_score(d.get("sim_context2")),
            "change": format_score(d.get("change")),
        }

    # --- agreement and aggregation: label fields and the report's plot ---------------------
    def label_fields(self) -> tuple[LabelField, ...]:
        return COSIMLEX_LABEL_FIELDS

    def report_plots(self, frame: Any) -> list[KindPlot]:
        """How often each point of the 0-6 scale was given, in the kept ratings."""
        counts = frame["rating"].dropna().astype(int).value_counts().reindex(RATING_SCALE, fill_value=0)
        return [
            KindPlot(
                "rating_distribution",
                "Rating distribution (kept ratings)",
                "bar",
                x=tuple(str(n) for n in RATING_SCALE),
                y=tuple(int(c) for c in counts),
                xlabel="rating",
                ylabel="ratings",
            )
        ]


# --- label fields (agreement) -------------------------------------------------------------------
COSIMLEX_LABEL_FIELDS = (LabelField("rating", "interval", column_label("rating"), title="similarity rating 0-6"),)
