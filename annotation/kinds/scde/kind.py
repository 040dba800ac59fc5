"""SCDE (Kong, Gangal and Hovy, ACL 2020): the sentence-cloze human-performance study as a task kind.

A worker reads a passage with numbered sentence blanks, fills each from one shared list of
candidate sentences (each used at most once; some fit nowhere), and rates the passage's
difficulty; the time spent is recorded (§5.3). Quality follows §5.2: BA, PA and DE per
worker, per passage and overall, beside the paper's human figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from quality.stats import scde as scde_stats

from ..base import ChannelPreset, FigureStyle, ItemExport, Page, ParsedItem, QualityOutcome, TaskKind
from ..model_task import ModelTask, choice
from ..registry import register
from ..results import LabelField
from ..suggestions import Place
from . import results
from .answers import candidate_label
from .figures import FIGURES
from .page import PASSAGE_PAGE, passage_context
from .preset import MTURK_PRESET
from .records import parse_records

DEFAULT_INSTRUCTIONS = _(
    "Each task is a short passage from an English reading exam with some sentences taken out. "
    "Every numbered blank in the passage stands for one missing sentence. Below the passage is a "
    "list of candidate sentences, marked A, B, C and so on. For each blank, choose the sentence "
    "that fits it best. Each sentence can be used for one blank only, and some of the sentences "
    "fit nowhere in the passage: read the whole passage before you decide.\n\n"
    "When every blank is filled, rate how difficult the passage was, from Very hard to Very easy. "
    "Take the time you need; we record how long you work on each passage. Your choices are kept "
    "if you reload the page, and your answers are saved when you press the button."
)


@register
class SCDE(TaskKind):
    slug = "scde"
    title = "SCDE: sentence cloze with distractors (human performance)"
    task_categories = ("multiple-choice", "fill-mask")
    file_format = (
        "SCDE's released train.json / dev.json / test.json: a JSON list of passages, each with passage (sentences; "
        "a blank is an element exactly <1>, <2>, ...), candidates, answer_sequence ([blank, candidate id] pairs, "
        "ids from 0; absent from unlabeled files), number_of_blanks, candidate_length and eid"
    )
    default_instructions = DEFAULT_INSTRUCTIONS
    default_settings = {
        # a tenth of the paper's 624 s per passage: faster than that is not reading the passage
        "min_seconds": scde_stats.DEFAULT_MIN_SECONDS,
        # the project's choice, not the paper's: humans reached 0.871, guessing gives 1/7
        "min_ba": scde_stats.DEFAULT_MIN_BA,
    }
    columns = results.COLUMNS
    item_text_columns = results.ITEM_TEXT_COLUMNS
    suggestion_places = {f.name: Place(PASSAGE_PAGE.slug, f.name) for f in results.LABEL_FIELDS}

    def label_fields(self) -> Sequence[LabelField]:
        """Each blank's chosen candidate and the difficulty rating (agreement between workers)."""
        return results.LABEL_FIELDS

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        """The passage with its blanks and the candidates; per blank of the study the candidate
        that fills it, and the difficulty."""
        options = [(i, f"{candidate_label(i)}. {text}") for i, text in enumerate(payload["candidates"])]
        blanks = sum(1 for piece in payload["pieces"] if "blank" in piece)
        questions = [
            choice(f"blank_{n}", f"Which candidate fills blank <{n}>?", options)
            for n in range(1, min(blanks, results.BLANKS_AGREED) + 1)
        ]
        levels = [(level, level) for level in scde_stats.DIFFICULTY_LEVELS]
        questions.append(choice("difficulty", "How difficult is the passage?", levels))
        return ModelTask(self.adjudication_item(payload), tuple(questions))

    def parse(self, text: str) -> list[ParsedItem]:
        return parse_records(text)

    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        return (PASSAGE_PAGE,)

    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        return passage_context(payload)

    def gold(self, payload: Mapping[str, Any]) -> dict[str, int] | None:
        return payload.get("gold")

    def gold_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The passage's answer key for the blanks that are label fields (`blank_<n>`)."""
        fields = {f.name for f in results.LABEL_FIELDS}
        gold = payload.get("gold") or {}
        return {f"blank_{b}": c for b, c in gold.items() if f"blank_{b}" in fields and c is not None}

    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        return results.quality_outcome(frame, settings)

    def item_diagnostic_columns(self) -> list[str]:
        return list(results.ITEM_DIAGNOSTIC_COLUMNS)

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        return FIGURES

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        return results.kept_items(frame, responses["keep"])

    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
        return results.export_row(payload, diagnostics)

    def item_exports(self) -> dict[str, ItemExport]:
        return {
            "worker_answers": ItemExport(
                "passages in SCDE's released format, each with the kept workers' answer_sequence",
                results.worker_answers_row,
            ),
        }

    def suggested_annotators_per_item(self, language: str) -> int:
        """The paper does not say how many workers answered each passage; three give a
        passage's figures some footing while the study's figures average over passages."""
        return 3

    def channel_presets(self) -> dict[str, ChannelPreset]:
        """The paper's MTurk setup (§5.3), with our reward and time allotted to edit."""
        return {"mturk": MTURK_PRESET}
