"""ReCAM (SemEval-2021 Task 4): cloze question answered before and after reading the passage.

Pages follow the paper's annotation script (Appendix A); quality follows Appendix E.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from quality.stats import recam as recam_stats

from .base import (
    Column,
    FigureStyle,
    ImportProblem,
    Page,
    PageForm,
    ParsedItem,
    QualityOutcome,
    TaskKind,
)
from .formats import content_id, jsonl_records, require_str
from .model_task import ModelTask, choice
from .registry import register
from .results import KindPlot, LabelField, column_label
from .spans import find_span
from .suggestions import Place

OPTION_KEYS = [f"option_{i}" for i in range(5)]
PLACEHOLDER = "@placeholder"
NO_OTHER_ANSWER = "none"
NO_OTHER_ANSWER_LABEL = _("No Other Answer")
RELATIONS = [("summarize", _("Summarize")), ("paraphrase", _("Paraphrase")), ("other", _("Others"))]
DIFFICULTIES = [("easy", _("Easy")), ("medium", _("Medium")), ("difficult", _("Difficult"))]


def _option_choices(payload: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(i), payload[key]) for i, key in enumerate(OPTION_KEYS)]


class ChoiceForm(PageForm):
    choice = forms.TypedChoiceField(coerce=int, widget=forms.RadioSelect, label="")

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["choice"]).choices = _option_choices(self.payload)


class SecondChoiceForm(PageForm):
    choice = forms.ChoiceField(widget=forms.RadioSelect, label="")

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["choice"]).choices = [
            *_option_choices(self.payload),
            (NO_OTHER_ANSWER, NO_OTHER_ANSWER_LABEL),
        ]

    def clean_choice(self) -> str:
        choice = self.cleaned_data["choice"]
        first = (self.answers.get("post") or {}).get("choice")
        if choice != NO_OTHER_ANSWER and first is not None and int(choice) == first:
            raise forms.ValidationError(
                _("Your second choice must differ from your answer; pick another word or No Other Answer.")
            )
        return choice

    def answer(self) -> dict[str, Any]:
        choice = self.cleaned_data["choice"]
        return {"choice": None if choice == NO_OTHER_ANSWER else int(choice)}


class SpanForm(PageForm):
    text = forms.CharField(
        required=False,
        strip=True,
        max_length=5000,
        label=_("Text span"),
        widget=forms.Textarea(attrs={"rows": 3, "data-span-target": "1"}),
    )
    none_found = forms.BooleanField(required=False, label=_("I cannot find such a span in the passage"))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        text, none_found = data.get("text", ""), data.get("none_found")
        if not text and not none_found:
            raise forms.ValidationError(
                _("Copy a span from the passage (select it with the mouse), or tick the box if there is none.")
            )
        if text and none_found:
            raise forms.ValidationError(_("Either copy a span or tick the box, not both."))
        if text:
            offsets = find_span(self.payload["article"], text)
            if offsets is None:
                self.add_error(
                    "text",
                    _(
                        "This text does not occur in the passage. Copy it exactly (select it in the passage to fill this box)."
                    ),
                )
            else:
                data["start"], data["end"] = offsets
        return data

    def answer(self) -> dict[str, Any]:
        data = self.cleaned_data
        if not data.get("text"):
            return {"text": "", "start": None, "end": None}
        start, end = data["start"], data["end"]
        return {"text": self.payload["article"][start:end], "start": start, "end": end}


class RelationForm(PageForm):
    relation = forms.ChoiceField(choices=RELATIONS, widget=forms.RadioSelect, label="")


class DifficultyForm(PageForm):
    difficulty = forms.ChoiceField(choices=DIFFICULTIES, widget=forms.RadioSelect, label="")


T = "surveys/recam/"
PAGES: tuple[Page, ...] = (
    Page("pre", _("Before reading"), T + "choice.html", ChoiceForm, locks=True),
    Page("post", _("After reading"), T + "choice.html", ChoiceForm),
    Page("second", _("Another answer?"), T + "choice.html", SecondChoiceForm),
    Page("support_span", _("Supporting span"), T + "span.html", SpanForm),
    Page("relation", _("Summarize or paraphrase?"), T + "choice.html", RelationForm),
    Page("summary_span", _("Summarized span"), T + "span.html", SpanForm),
    Page("difficulty", _("Difficulty"), T + "choice.html", DifficultyForm),
)
QUESTIONS = {
    "pre": _("Before reading the passage, select the one word that best fills the blank."),
    "post": _(
        "Now read the passage. After reading and understanding it, select the one word that best fills the blank."
    ),
    "second": _(
        "If you think another word could also answer this question, pick it as your second choice. Otherwise pick No Other Answer."
    ),
    "support_span": _(
        "Which part of the passage supports your answer? Select it in the passage (or copy it) into the box."
    ),
    "relation": _("Does the answer summarize or paraphrase the text span?"),
    "summary_span": _(
        "Which part of the passage is summarized by the information in the answer? Select it in the passage (or copy it) into the box."
    ),
    "difficulty": _("How difficult is this question?"),
}


def _no_other_answer(answers: Mapping[str, Any]) -> bool | None:
    """None before the page is answered; else whether the second choice is "No Other Answer"
    (stored as None)."""
    page = answers.get("second")
    return None if page is None else page.get("choice") is None


def _is_label(payload: Mapping[str, Any], answers: Mapping[str, Any], page: str) -> bool | None:
    """Whether the page's choice is the label; None when either is unknown (test items)."""
    label, choice = payload.get("label"), (answers.get(page) or {}).get("choice")
    return None if label is None or choice is None else choice == label


#: the report's labels and units of the kind's own figures
FIGURES: dict[str, FigureStyle] = {
    "mean_annotator_accuracy": FigureStyle("Mean accuracy of an annotator against gold", "share"),
    "dropped_incomplete": FigureStyle("Annotations dropped: incomplete", "count"),
    "dropped_low_accuracy_annotator": FigureStyle("Annotations dropped: annotator below the accuracy minimum", "count"),
    "dropped_empty_span": FigureStyle("Annotations dropped: empty supporting span", "count"),
    "dropped_easy_wrong": FigureStyle("Annotations dropped: rated easy but answered wrongly", "count"),
    "post_accuracy": FigureStyle("Accuracy after reading the passage", "share"),
    "pre_accuracy": FigureStyle("Accuracy before reading the passage", "share"),
    "second_answer_share": FigureStyle("Gave a second answer", "share"),
    "difficulty_easy": FigureStyle("Rated easy", "count"),
    "difficulty_medium": FigureStyle("Rated medium", "count"),
    "difficulty_difficult": FigureStyle("Rated difficult", "count"),
    "majority_choice": FigureStyle("Majority choice", "text"),
    "majority_share": FigureStyle("Share choosing the majority", "share"),
}


@register
class ReCAM(TaskKind):
    slug = "recam"
    title = "ReCAM: reading comprehension of abstract meaning"
    task_categories = ("multiple-choice", "question-answering")
    file_format = "JSON Lines as released for SemEval-2021 Task 4 (article, question with one @placeholder, option_0-option_4, label 0-4; test files: id and no label)"
    default_settings = {"min_accuracy": 0.4, "easy_must_be_correct": True, "require_spans": True}
    columns = (
        Column.answer("pre_choice", "pre", "choice"),
        Column.answer("post_choice", "post", "choice"),
        Column.answer("second_choice", "second", "choice"),
        Column("no_other_answer", lambda payload, answers: _no_other_answer(answers)),
        Column.answer("support_span", "support_span", "text"),
        Column.answer("support_start", "support_span", "start"),
        Column.answer("support_end", "support_span", "end"),
        Column.answer("relation", "relation", "relation"),
        Column.answer("summary_span", "summary_span", "text"),
        Column.answer("summary_start", "summary_span", "start"),
        Column.answer("summary_end", "summary_span", "end"),
        Column.answer("difficulty", "difficulty", "difficulty"),
        Column.item("label"),
        Column("pre_correct", lambda payload, answers: _is_label(payload, answers, "pre"), payload_keys=("label",)),
        Column("post_correct", lambda payload, answers: _is_label(payload, answers, "post"), payload_keys=("label",)),
    )
    item_text_columns = (Column.item("question"), Column.item("article"))
    suggestion_places = {
        "pre_choice": Place("pre", "choice"),
        "post_choice": Place("post", "choice"),
        "second_choice": Place("second", "choice"),
        "relation": Place("relation", "relation"),
        "difficulty": Place("difficulty", "difficulty"),
    }
    default_instructions = _(
        "Each question is a one-sentence summary of a news passage with one word left out "
        "(shown as a blank). You will first pick the missing word without seeing the passage, "
        "then read the passage and answer again, say whether another word could also fit, copy "
        "the parts of the passage that support your answer, and rate how difficult the question was. "
        "Select text in the passage with the mouse to copy it into the answer box. "
        "Your answers are saved after every step, so you can stop and come back with the same link."
    )

    # --- import ------------------------------------------------------------------------
    def parse(self, text: str) -> list[ParsedItem]:
        return list(self.iter_parse(text))

    def iter_parse(self, text: str) -> Iterator[ParsedItem]:
        for line, record in jsonl_records(text):
            self._validate(record, line)
            external_id = str(record["id"]) if "id" in record else content_id(record)
            yield ParsedItem(external_id=external_id, payload=record, line=line)

    @staticmethod
    def _validate(record: dict[str, Any], line: int) -> None:
        if "id" in record and (isinstance(record["id"], bool) or not isinstance(record["id"], (int, str))):
            raise ImportProblem("must be an integer or a string", line=line, field="id")
        require_str(record, "article", line)
        question = require_str(record, "question", line)
        count = question.count(PLACEHOLDER)
        if count != 1:
            raise ImportProblem(f"must contain exactly one {PLACEHOLDER} (found {count})", line=line, field="question")
        for key in OPTION_KEYS:
            require_str(record, key, line)
        if "label" in record:
            label = record["label"]
            if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label <= 4:
                raise ImportProblem(f"must be an integer from 0 to 4, got {label!r}", line=line, field="label")

    # --- flow --------------------------------------------------------------------------
    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        return PAGES

    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        before, after = payload["question"].split(PLACEHOLDER, 1)
        context: dict[str, Any] = {
            "question_before": before,
            "question_after": after,
            "prompt": QUESTIONS[page.slug],
        }
        if page.slug != "pre":  # the passage is revealed only once the pre-reading answer is fixed
            context["article"] = payload["article"]
            context["pre_choice"] = payload[OPTION_KEYS[answers["pre"]["choice"]]]
        if page.slug in ("support_span", "summary_span", "relation", "second"):
            context["answer_word"] = payload[OPTION_KEYS[answers["post"]["choice"]]]
        return context

    # --- results -----------------------------------------------------------------------
    def gold(self, payload: Mapping[str, Any]) -> int | None:
        return payload.get("label")

    def gold_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The released answer is the right choice before and after reading."""
        label = payload.get("label")
        return {} if label is None else {"post_choice": label, "pre_choice": label}

    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        selection = recam_stats.select_annotations(
            frame,
            min_accuracy=float(settings["min_accuracy"]),
            easy_must_be_correct=bool(settings["easy_must_be_correct"]),
            require_spans=bool(settings["require_spans"]),
        )
        items = recam_stats.item_diagnostics(frame, kept=selection.responses["keep"])
        return QualityOutcome(
            responses=selection.responses,
            annotators=selection.annotators,
            items=items,
            summary=selection.summary,
        )

    def item_diagnostic_columns(self) -> list[str]:
        return list(recam_stats.ITEM_DIAGNOSTIC_COLUMNS)

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        """The items' figures over what the run finally keeps (the researcher's verdicts too)."""
        return recam_stats.item_diagnostics(frame, kept=responses["keep"])

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        return FIGURES

    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
        row: dict[str, Any] = {}
        if "id" in payload:
            row["id"] = payload["id"]
        for key in ["article", "question", *OPTION_KEYS]:
            row[key] = payload[key]
        if "label" in payload:
            row["label"] = payload["label"]
        for column in self.item_diagnostic_columns():
            row[column] = None if diagnostics is None else diagnostics.get(column)
        return row

    # --- agreement and aggregation: label fields and the report's plot ---------------------
    def label_fields(self) -> tuple[LabelField, ...]:
        """Post-reading choice first: the answer accuracy and the annotator agreement rule judge."""
        return RECAM_LABEL_FIELDS

    def report_plots(self, frame: Any) -> list[KindPlot]:
        return _pre_post_plot(frame)

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        """The question, its five options and the passage; the answer after reading, a second
        answer, the evidence's relation and the difficulty (the choice before reading is a
        person's, made without the passage: not asked)."""
        options = [(i, str(payload[key])) for i, key in enumerate(OPTION_KEYS)]
        item = {
            "question": payload["question"],
            "options": "\n".join(f"{i}: {text}" for i, text in options),
            "article": payload["article"],
        }
        second = [*options, (NO_OTHER_ANSWER, str(NO_OTHER_ANSWER_LABEL))]
        return ModelTask(
            item,
            (
                choice("post_choice", f"Which option fills the blank ({PLACEHOLDER})?", options),
                choice("second_choice", "Which other option could also fill the blank?", second),
                choice("relation", str(QUESTIONS["relation"]), [(k, str(v)) for k, v in RELATIONS]),
                choice("difficulty", str(QUESTIONS["difficulty"]), [(k, str(v)) for k, v in DIFFICULTIES]),
            ),
        )


# --- label fields and the report's plot (agreement, aggregation) ----------------------------
def _second_choice(row: Mapping[str, Any]) -> Any:
    """The second choice, with "No Other Answer" as a label of its own (it is an answer, not a gap)."""
    if row.get("no_other_answer") is None:
        return None
    return NO_OTHER_ANSWER if row["no_other_answer"] else row.get("second_choice")


RECAM_LABEL_FIELDS = (
    LabelField("post_choice", "nominal", column_label("post_choice"), title="answer after reading"),
    LabelField("pre_choice", "nominal", column_label("pre_choice"), title="answer before reading"),
    LabelField("second_choice", "nominal", _second_choice, title="second choice"),
    LabelField("relation", "nominal", column_label("relation"), title="evidence: summarize or paraphrase"),
    LabelField(
        "difficulty", "ordinal", column_label("difficulty"), order=tuple(k for k, _ in DIFFICULTIES), title="difficulty"
    ),
)


def _pre_post_plot(frame: Any) -> list[KindPlot]:
    """Per item, the share of kept annotations right before reading against after (items with a label)."""
    known = frame[frame["label"].notna() & frame["post_correct"].notna()]
    if known.empty:
        return []
    shares = known.groupby("item_id")[["pre_correct", "post_correct"]].agg(
        lambda column: float(column.astype(float).mean())
    )
    return [
        KindPlot(
            "pre_post_accuracy",
            "Accuracy per item: before vs after reading",
            "scatter",
            x=tuple(shares["pre_correct"]),
            y=tuple(shares["post_correct"]),
            xlabel="share right before reading",
            ylabel="share right after reading",
        )
    ]
