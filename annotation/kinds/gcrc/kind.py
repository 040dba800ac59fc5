"""GCRC (Tan et al., 2021): supporting facts, error reasons and reasoning skills of Gaokao
Chinese reading-comprehension questions, labeled by expert annotators.

Pages: an item released with its answer is shown with it (as in the paper, step 2) and walks
through one page per option A-D; an item released without one (the test set) first asks for
the answer. One page per option rather than one page for all four: each page shows the article
once, its sentences being the checkboxes, so a phone gets one article to tap through instead of
four sets of 20-40 sentence boxes, and every option is saved as soon as it is done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from ..base import Column, FigureStyle, ItemExport, Page, ParsedItem, QualityOutcome, TaskKind, ValueFormat
from ..model_task import ModelTask
from ..registry import register
from ..results import LabelField
from ..scoring import Scorer
from ..suggestions import Place
from . import adjudication
from . import quality as gcrc_quality
from .adjudication import field_name, split_field
from .figures import FIGURES
from .forms import OPTION_FORMS, AnswerForm, item_answer, preset_wrong
from .labels import OPTION_LETTERS, polarity
from .model import model_task
from .records import parse_records
from .released import COLUMNS, LABEL_FIELDS, option_page, released_item
from .scorers import SCORERS

T = "surveys/gcrc/"
ANSWER_PAGE = Page("answer", _("The answer"), T + "answer.html", AnswerForm)
OPTION_PAGES: tuple[Page, ...] = tuple(
    Page(option_page(letter), format_lazy(_("Option {letter}"), letter=letter), T + "option.html", form)
    for letter, form in zip(OPTION_LETTERS, OPTION_FORMS, strict=True)
)

DEFAULT_INSTRUCTIONS = _(
    "Each question comes from the Chinese reading-comprehension part of the Gaokao: an article, "
    "a question and four options A-D, with the correct answer shown (if it is not, you first pick it). "
    "Then you label each option on its own page.\n\n"
    "1. Supporting sentences: click every sentence of the article that is needed to judge whether the "
    "option is right or wrong (at least one; click again to remove it).\n"
    "2. Reasoning skill: the one skill needed to judge the option, from level 1 (basic information "
    "capturing: detail understanding) through level 2 (local information integration: temporal/spatial, "
    "coreference, deductive, mathematical, cause-effect) to level 3 (global information integration: "
    "inductive, appreciative analysis).\n"
    "3. Error reason: for an option that is a wrong statement, why it is wrong (wrong details, temporal "
    "properties, subject-predicate-object relation, necessary and sufficient conditions or causality; "
    "irrelevant to the question; irrelevant to the article). Whether an option is wrong is pre-set from "
    'the question ("pick the correct one": the three other options are wrong; "pick the incorrect '
    'one": only the answer is); correct it if it is not right.\n\n'
    "Your answers are saved after every page, so you can stop and come back with the same link."
)


def paragraphs(payload: Mapping[str, Any]) -> list[list[int]]:
    """The sentence indexes grouped by the passage's line breaks, to lay the article out as it is."""
    passage, groups = payload["passage"], list[list[int]]()
    previous_end = 0
    for index, sentence in enumerate(payload["sentences"]):
        gap = passage[previous_end : sentence["start"]]
        if not groups or "\n" in gap or "\r" in gap:
            groups.append([])
        groups[-1].append(index)
        previous_end = sentence["end"]
    return groups


#: where a model's labels go, per option: its skill; an error reason (which makes it a wrong
#: statement); its sentences, numbered from 1 as a prediction holds them, indexes from 0 as the
#: page's boxes take them
SUGGESTION_PLACES = {
    field_name(letter, part): Place(option_page(letter), part, initial)
    for letter in OPTION_LETTERS
    for part, initial in (
        ("skill", None),
        ("error", lambda code: {"error": code, "wrong": True}),
        ("evidence", lambda numbers: {"evidence": [n - 1 for n in numbers]}),
    )
}


@register
class GCRC(TaskKind):
    slug = "gcrc"
    title = "GCRC: supporting facts, error reasons and reasoning skills (Chinese reading comprehension)"
    task_categories = ("multiple-choice", "question-answering")
    file_format = (
        'GCRC released JSON: {"data": [...]} with id, title, passage, question and four options; labeled files '
        "add answer, evidences, error_type and reasoning_ability (kept as the item's reference labels); the "
        "adversarial-robustness derivative's extra fields are kept. UTF-8, BOM and CRLF tolerated"
    )
    columns = COLUMNS
    suggestion_places = SUGGESTION_PLACES

    def label_fields(self) -> Sequence[LabelField]:
        """Per option: skill, error reason and supporting sentences (agreement between the two annotators)."""
        return LABEL_FIELDS

    item_text_columns = (
        Column.item("question"),
        Column(
            "options",
            lambda p, a: "\n".join(f"{x}. {o}" for x, o in zip(OPTION_LETTERS, p["options"], strict=True)),
            payload_keys=("options",),
        ),
        Column.item("passage"),
    )
    default_instructions = DEFAULT_INSTRUCTIONS

    def parse(self, text: str) -> list[ParsedItem]:
        return parse_records(text)

    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        if (payload.get("reference") or {}).get("answer"):
            return OPTION_PAGES
        return (ANSWER_PAGE, *OPTION_PAGES)

    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        answer = item_answer(payload, answers) if page is not ANSWER_PAGE else None
        current = next((i for i, p in enumerate(OPTION_PAGES) if p.slug == page.slug), None)
        context: dict[str, Any] = {
            "title": payload.get("title", ""),
            "question": payload["question"],
            "paragraphs": paragraphs(payload),
            "sentences": [s["text"] for s in payload["sentences"]],
            "options": [
                {"letter": x, "text": t, "is_answer": x == answer, "current": i == current}
                for i, (x, t) in enumerate(zip(OPTION_LETTERS, payload["options"], strict=True))
            ],
            "answer": answer,
        }
        if current is not None and answer is not None:
            found = polarity(payload["question"], answer)
            context.update(
                letter=OPTION_LETTERS[current],
                option=payload["options"][current],
                asks_for_wrong=found.asks_for_wrong,
                marker=found.marker,
                preset_wrong=preset_wrong(payload, answers)[current],  # type: ignore[index]
            )
        return context

    def gold(self, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        return payload.get("reference")

    def gold_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The released labels per option as the label fields have them: skill and error codes
        (an empty error: none), supporting sentences as the pages number them (from 1)."""
        reference = payload.get("reference") or {}
        found: dict[str, Any] = {}
        for n, letter in enumerate(OPTION_LETTERS):
            for part, key in (("skill", "reasoning_ability"), ("error", "error_type")):
                if (reference.get(key) or [None] * 4)[n]:
                    found[field_name(letter, part)] = reference[key][n]
            indexes = (reference.get("evidence_sentences") or [None] * 4)[n]
            if indexes and None not in indexes:
                found[field_name(letter, "evidence")] = sorted({i + 1 for i in indexes})
        return found

    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        return gcrc_quality.select(frame)

    def item_diagnostic_columns(self) -> list[str]:
        return ["annotation_count", "observed_agreement"]

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        return gcrc_quality.kept_items(frame, responses["keep"])

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        return FIGURES

    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
        """The item as released (its own labels too, when it had them), with the run's figures."""
        row = released_item(payload)
        for column in self.item_diagnostic_columns():
            value: Any = None if diagnostics is None else diagnostics.get(column)
            row[column] = value.item() if hasattr(value, "item") else value  # numpy scalars as plain
        return row

    def suggested_annotators_per_item(self, language: str) -> int:
        """Two independent annotators per question (§4, step 2); a third resolves later."""
        return 2

    # --- adjudication: GCRC's fields and rules (adjudication.py) ---------------------------
    def adjudication_fields(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
        return adjudication.fields(payload, answers)

    def same(self, field: str, a: Any, b: Any) -> bool:
        return adjudication.same(field, a, b)

    def adjudication_title(self, field: str) -> str:
        return adjudication.title(field)

    def adjudication_item(self, payload: Mapping[str, Any]) -> dict[str, str]:
        return adjudication.item_text(payload)

    def adjudication_display(self, payload: Mapping[str, Any], field: str, value: Any) -> str:
        return adjudication.display(payload, field, value)

    def adjudication_format(self, payload: Mapping[str, Any], field: str) -> ValueFormat:
        return adjudication.value_format(payload, field)

    def adjudication_value(self, payload: Mapping[str, Any], field: str, text: str) -> Any:
        return adjudication.parse(payload, field, text)

    def prediction_value(self, payload: Mapping[str, Any], field: str, value: Any) -> Any:
        """Supporting sentences as their annotation column has them: the numbers the pages show
        (from 1); checked by the adjudicator's parse of the same numbers."""
        if split_field(field)[1] == "evidence" and isinstance(value, list):
            parsed = super().prediction_value(payload, field, ", ".join(str(n) for n in value))
            return [index + 1 for index in parsed]
        return super().prediction_value(payload, field, value)

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        return model_task(payload)

    def final_item(self, payload: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, Any]:
        return adjudication.released(payload, final)

    def final_export_value(self, field: str, value: Any) -> Any:
        """Supporting sentences as the numbers the pages show them with (from 1), not indexes."""
        if split_field(field)[1] == "evidence" and isinstance(value, list):
            return [index + 1 for index in value]
        return value

    def final_quality(self, finals: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
        """The final labels scored against the item's reference labels (item 7 of the issue)."""
        return gcrc_quality.final_reference_scores(
            (payload.get("reference") or {}, adjudication.released(payload, final)) for payload, final in finals
        )

    def scorers(self) -> dict[str, Scorer]:
        return SCORERS

    def item_exports(self) -> dict[str, ItemExport]:
        return {
            "gcrc_annotations": ItemExport(
                "each annotation in GCRC's released format (answer, evidences, error_type, reasoning_ability), "
                "one row per annotation with who made it; from the latest quality run",
                annotation_rows,
            )
        }


def annotation_rows(payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The item in the released format once per annotation the latest run kept, with who made it."""
    item = {key: payload[key] for key in ("id", "title", "passage", "question", "options")}
    rows = []
    for annotation in (diagnostics or {}).get("annotations") or []:
        labels = {key: annotation[key] for key in ("answer", "evidences", "error_type", "reasoning_ability")}
        who = {key: annotation[key] for key in ("annotator", "annotator_id", "response_id")}
        rows.append({**item, **labels, **who})
    return rows
