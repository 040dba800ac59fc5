"""CoSimLex (SemEval-2020 Task 3): graded word similarity in context.

Each released row (a word pair with two contexts) becomes two items tied by the pair's
`group_key`; an annotator rates only one of them (`exclusive_groups`). Two pages per item, as
in the paper's Appendix A: the context with nothing marked and two words "inspired by it",
then the same context with the targets in bold and a 0-6 similarity rating.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from quality.stats import cosimlex as cosimlex_stats

from ..base import (
    Column,
    FigureStyle,
    ItemExport,
    Page,
    PageForm,
    ParsedItem,
    QualityOutcome,
    TaskKind,
)
from ..model_task import ModelTask, number
from ..registry import register
from ..results import KindPlot, LabelField, column_label
from ..scoring import ProjectResults, Scorer
from ..suggestions import Place
from .figures import FIGURES
from .records import (
    FORM_COLUMNS,
    KIT_COLUMNS,
    PAIR_COLUMNS,
    RATING_SCALE,
    SCORE_COLUMNS,
    context_segments,
    format_score,
    parse_records,
    plain_context,
)
from .scorers import SCORERS, model_semeval


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
    task_categories = ("sentence-similarity",)
    numeric_text_columns = tuple(SCORE_COLUMNS)
    item_results = False  # a row is a pair of contexts, with each context's mean and SD already
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
    suggestion_places = {"rating": Place("rating", "rating")}
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
        return parse_records(text)

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

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        """The pairs' scores over the ratings the run finally keeps (the researcher's verdicts too)."""
        return cosimlex_stats.item_statistics(frame, responses=responses)

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        return FIGURES

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

    def prediction_scorers(self, results: ProjectResults, predicted: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The SemEval-2020 Task 3 scorer on the model's ratings, as on a system's submission."""
        return {"semeval2020": model_semeval(results, predicted)}

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

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        """The context and the two words; their similarity in it on the page's 0-6 scale."""
        item = {"context": plain_context(payload[f"context{payload['context']}"]), "word 1": payload["word1"]}
        item["word 2"] = payload["word2"]
        note = "A whole number from 0 (not similar at all) to 6 (extremely similar)."
        prompt = "How similar in meaning are the two words, as they are used in this context?"
        return ModelTask(item, (number("rating", prompt, low=0, high=6, whole=True, note=note),))

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
