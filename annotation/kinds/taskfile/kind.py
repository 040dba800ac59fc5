"""A task kind made from a task file: the same `TaskKind` interface as the built-in kinds, so the
save path, channels, quality, agreement, adjudication, report and exports never ask where a kind
came from. One class per file (its title, columns and settings are class-level declarations, as
a built-in kind's are), one object per file text, cached."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from django.utils.functional import lazy
from django.utils.translation import gettext as _

from quality.stats import gold_accuracy

from ..base import Column, FigureStyle, Page, PageForm, ParsedItem, QualityOutcome, TaskKind
from ..imported import checked_annotation
from ..model_task import ModelTask
from ..problems import ImportProblem
from ..results import KindPlot, LabelField
from ..suggestions import EMPTY, Suggestion, choice_text
from ..typed import ImportedPrediction, TypedAnswer
from . import model
from .display import markdown_html, sentences_of, text_of
from .forms import TaskFilePageForm, answer_of, asked, question_context
from .questions import is_correct, label_of, options_for
from .records import label_studio_predictions, parse_items
from .spec import CHOICES, PageSpec, Question, TaskSpec, build
from .typed import form_data, predicted_spans, spans_text, typed_answer
from .words import words_for

TASK_FILE_KIND = "task_file"
TEMPLATE = "surveys/taskfile/page.html"
#: the report draws the answers of the first label fields
MAX_PLOTS = 6
QUALITY_DEFAULTS: dict[str, Any] = {"min_gold_accuracy": None}
FIGURES = {
    "mean_annotator_accuracy": FigureStyle("Mean accuracy of an annotator on gold questions", "share"),
    "dropped_incomplete": FigureStyle("Annotations dropped: incomplete", "count"),
    "dropped_low_accuracy_annotator": FigureStyle("Annotations dropped: annotator below the gold minimum", "count"),
    "gold_accuracy": FigureStyle("Accuracy on gold questions", "share"),
    "median_seconds": FigureStyle("Median time", "seconds"),
}


class TaskFileKind(TaskKind):
    """The behaviour every file-made kind shares; `make_kind` declares one file's class."""

    slug = TASK_FILE_KIND
    title = "Task from a file"

    def __init__(self, task: TaskSpec):
        self.task = task
        self.words = words_for(task)
        self.forms = {
            page.id: type(
                f"{page.id}_form",
                (TaskFilePageForm,),
                {"task": task, "page_spec": page, "words": staticmethod(self.words)},
            )
            for page in task.pages
        }
        last_reveal = max((self._page_index(s.reveal_after) for s in task.shown if s.reveal_after), default=-1)
        #: the pages answered before anything is revealed: their answers are final
        self.locking = {page.id for page in task.pages[: last_reveal + 1]}

    def _page_index(self, page_id: str) -> int:
        return [p.id for p in self.task.pages].index(page_id)

    # --- import --------------------------------------------------------------------
    def parse(self, text: str) -> list[ParsedItem]:
        return list(self.iter_parse(text))

    def iter_parse(self, text: str) -> Iterator[ParsedItem]:
        """The file's items, each annotation it carries checked by the pages' forms (a Label
        Studio task's results mapped back to the questions by `taskfile.typed.form_data`)."""
        for item in parse_items(self.task, text):
            if item.annotations:
                checked = tuple(checked_annotation(self, item.payload, a, self._form_data) for a in item.annotations)
                item = replace(item, annotations=checked)
            yield item

    def imported_predictions(self, text: str) -> list[ImportedPrediction] | None:
        """A Label Studio export's predictions (`records.label_studio_predictions`)."""
        return label_studio_predictions(self.task, text)

    def _form_data(self, payload: Mapping[str, Any], typed: Sequence[TypedAnswer]) -> dict[str, Any]:
        return form_data(self.task, payload, typed)

    # --- flow ----------------------------------------------------------------------
    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        return [self._page(spec) for spec in self.task.pages if self._shows(spec, answers)]

    def _shows(self, page: PageSpec, answers: Mapping[str, Any]) -> bool:
        """Answered pages stay; a condition not decided yet counts the page in (until it is)."""
        condition = page.show_if
        if page.id in answers or condition is None:
            return True
        if self.task.question(condition.question).page not in answers:
            return True
        return condition.holds(answer_of(self.task, answers, condition.question))

    def _page(self, spec: PageSpec) -> Page:
        return Page(
            spec.id,
            self.words(spec.title),
            TEMPLATE,
            self.forms[spec.id],
            locks=spec.id in self.locking,
            min_seconds=spec.min_seconds,
        )

    def suggestions(self, page: Page, form: PageForm, labels: Mapping[str, Any]) -> list[Suggestion]:
        """The page's label questions a model labeled, pre-selected as an imported annotation's
        answer fills the form (`form_data`); a label the question cannot take is not suggested."""
        found = []
        for q in getattr(form, "asked", ()):
            value = labels.get(q.id)
            if not q.label or value in EMPTY:
                continue
            try:
                data = form_data(self.task, form.payload, self.prediction_typed_answers({q.id: value}, form.payload))
            except ImportProblem:
                continue
            shown = data[q.id]
            source = text_of(form.payload.get(q.get("source")))
            text = spans_text(shown, source) if q.type == "spans" else choice_text(form, q.id, shown)
            found.append(Suggestion(q.id, q.id, value, data, text))
        return found

    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        spec = next(p for p in self.task.pages if p.id == page.slug)
        questions = asked(self.task, spec, answers)
        marks = {q.get("source"): q for q in questions if q.type in ("spans", "sentences")}
        shown = []
        for item in self.task.shown:
            if item.reveal_after and item.reveal_after not in answers:
                continue  # not sent to the browser before its page is saved
            value = payload.get(item.key)
            entry: dict[str, Any] = {"key": item.key, "label": self.words(item.label), "as": item.as_}
            if item.as_ == "markdown":
                entry["html"] = markdown_html(value)
            elif item.as_ == "sentences":
                entry["sentences"] = sentences_of(value)
            else:
                entry["text"] = text_of(value)
            mark = marks.get(item.key)
            entry["mark"] = None if mark is None else {"question": mark.id, "type": mark.type}
            shown.append(entry)
        return {
            "intro": self.words(spec.intro) if spec.intro else "",
            "min_seconds": f"{spec.min_seconds:g}" if spec.min_seconds else "",
            "shown": shown,
            "questions": [question_context(q, self.words) for q in questions],
        }

    # --- results -------------------------------------------------------------------
    def gold(self, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        gold = {q.id: payload[q.gold] for q in self.task.questions if q.gold and payload.get(q.gold) not in (None, "")}
        return gold or None

    def gold_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each label question's gold, as its label (`label_of`)."""
        return {
            q.id: label_of(q, payload[q.gold])
            for q in self.task.questions
            if q.label and q.gold and payload.get(q.gold) not in (None, "")
        }

    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        selection = gold_accuracy.select_annotations(
            frame, correct_columns=self._correct_columns(), min_gold_accuracy=_number(settings.get("min_gold_accuracy"))
        )
        return QualityOutcome(selection.responses, selection.annotators, selection.items, selection.summary)

    def _correct_columns(self) -> list[str]:
        return [f"{q.id}_correct" for q in self.task.questions if q.gold]

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        """The items' figures over what the run finally keeps (the researcher's verdicts too)."""
        return gold_accuracy.item_figures(frame, correct_columns=self._correct_columns(), keep=responses["keep"])

    def item_diagnostic_columns(self) -> list[str]:
        return list(gold_accuracy.ITEM_DIAGNOSTIC_COLUMNS)

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        return FIGURES

    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any]:
        row = dict(payload)
        for column in self.item_diagnostic_columns():
            row[column] = None if diagnostics is None else diagnostics.get(column)
        return row

    def suggested_annotators_per_item(self, language: str) -> int:
        return int(self.task.settings.get("annotators_per_item", 3))

    def adjudication_value(self, payload: Mapping[str, Any], field: str, text: str) -> Any:
        """The label field's check, then a choice question's options (the file's or the item's):
        an adjudicator's or a model's value must be one of them, typed as the option is."""
        value = super().adjudication_value(payload, field, text)
        question = next((q for q in self.task.questions if q.id == field), None)
        if question is None or question.type not in CHOICES:
            return value
        options = {str(o.value): o.value for o in options_for(question, payload, str)}
        given = value if isinstance(value, list) else [value]
        wrong = [str(v) for v in given if str(v) not in options]
        if wrong:
            raise ValueError(
                _("“%(text)s” is not one of: %(values)s.") % {"text": wrong[0], "values": ", ".join(options)}
            )
        typed = [options[str(v)] for v in given]
        return typed if isinstance(value, list) else typed[0]

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        return model.model_task(self.task, payload, self.words)

    def hub_task_categories(self) -> list[str]:
        """The file's `task_categories`, else what its label fields suggest."""
        return list(self.task.task_categories) or super().hub_task_categories()

    def label_fields(self) -> Sequence[LabelField]:
        return tuple(_label_field(q) for q in self.task.questions if q.label)

    def marked_spans(self, payload: Mapping[str, Any]) -> Sequence[tuple[str, str, str]]:
        spans = (q for q in self.task.questions if q.type == "spans")
        return tuple((q.page, q.id, text_of(payload.get(q.get("source")))) for q in spans)

    def typed_answers(self, row: Mapping[str, Any]) -> list[TypedAnswer]:
        """The label questions' answers typed by question type (`taskfile.typed`)."""
        typed = (typed_answer(q, row.get(q.id), self.task) for q in self.task.questions if q.label)
        return [answer for answer in typed if answer is not None]

    def prediction_typed_answers(
        self, labels: Mapping[str, Any], payload: Mapping[str, Any] | None = None
    ) -> list[TypedAnswer]:
        """As `typed_answers`: a prediction holds a question's value as its answer does, but for
        marked spans, stored as `start-end label` texts (`predicted_spans` makes them spans of the
        item's text again)."""
        row = {k: predicted_spans(v, self._source_text(k, payload or {})) for k, v in labels.items()}
        return self.typed_answers(row)

    def _source_text(self, field: str, payload: Mapping[str, Any]) -> str | None:
        """The text a span question marks (None: the field is not a span question's)."""
        question = next((q for q in self.task.questions if q.id == field and q.type == "spans"), None)
        return None if question is None else text_of(payload.get(question.get("source")))

    def adjudication_display(self, payload: Mapping[str, Any], field: str, value: Any) -> str:
        """A choice as the annotator saw it (its option's words and value), not its bare value."""
        question = next((q for q in self.task.questions if q.id == field), None)
        if question is None or question.type not in CHOICES or value is None:
            return super().adjudication_display(payload, field, value)
        words = {str(o.value): o.label for o in options_for(question, payload, self.words)}
        shown = [f"{words.get(str(v), v)} ({v})" for v in (value if isinstance(value, list) else [value])]
        return "; ".join(shown)

    def report_plots(self, frame: Any) -> list[KindPlot]:
        """Per label field, how often each answer was given in the kept annotations (a set's
        members counted one by one); a histogram for an interval field."""
        return [plot for field in self.label_fields()[:MAX_PLOTS] if (plot := _answers_plot(field, frame))]


def _answers_plot(field: LabelField, frame: Any) -> KindPlot | None:
    values = [field.value(row) for row in frame.to_dict("records")] if len(frame) else []
    values = [v for v in values if v is not None]
    if not values:
        return None
    title = f"Answers: {field.title or field.name}"
    if field.level == "interval":
        return KindPlot(
            f"answers_{field.name}", title, "hist", x=tuple(float(v) for v in values), xlabel=field.title or field.name
        )
    counts: Counter[str] = Counter()
    for value in values:
        counts.update(str(v) for v in (value if isinstance(value, list) else [value]))
    order = [str(v) for v in field.order] if field.order else sorted(counts)
    order = [v for v in order if v in counts] + [v for v in sorted(counts) if v not in order]
    return KindPlot(
        f"answers_{field.name}", title, "bar", x=tuple(order), y=tuple(counts[v] for v in order), ylabel="annotations"
    )


def _number(value: Any) -> float | None:
    return None if value is None or value == "" else float(value)


def _label_field(q: Question) -> LabelField:
    order: tuple | None = None
    if q.type == "likert":
        order = tuple(range(1, int(q.get("size")) + 1))
    elif q.type in CHOICES and q.label == "ordinal" and q.get("options"):
        order = tuple(o["value"] if isinstance(o, Mapping) else o for o in q.get("options"))
    spans = (lambda row: row.get(q.id)) if q.type == "spans" else None
    return LabelField(q.id, q.label, lambda row: label_of(q, row.get(q.id)), order=order, title=q.prompt, spans=spans)


def _correctness(q: Question) -> Callable[[Mapping[str, Any], Mapping[str, Any]], bool | None]:
    def correct(payload: Mapping[str, Any], answers: Mapping[str, Any]) -> bool | None:
        return is_correct(q, (answers.get(q.page) or {}).get(q.id), payload.get(q.gold))

    return correct


def _columns(task: TaskSpec) -> tuple[Column, ...]:
    """One column per question (its id), and `<id>_correct` beside each gold question."""
    columns: list[Column] = []
    for q in task.questions:
        columns.append(Column.answer(q.id, q.page, q.id))
        if q.gold:
            columns.append(Column(f"{q.id}_correct", _correctness(q), payload_keys=(q.gold,)))
    return tuple(columns)


def make_kind(task: TaskSpec) -> TaskKind:
    words = words_for(task)
    required = ", ".join(task.required) or "any keys"
    declarations = {
        "title": task.title,
        "default_instructions": lazy(lambda: words(task.instructions), str)(),
        "file_format": "JSON Lines, a JSON array, CSV or TSV (or Label Studio's task JSON, its annotations "
        f"imported as completed annotations); each record has {required}"
        + (f" and its id in '{task.id_key}'" if task.id_key else ""),
        "default_settings": {
            **QUALITY_DEFAULTS,
            **{k: v for k, v in task.settings.items() if k != "annotators_per_item"},
        },
        "columns": _columns(task),
        "item_text_columns": tuple(Column.item(s.key) for s in task.shown),
    }
    cls = type("TaskFromFile", (TaskFileKind,), declarations)
    return cls(task)


@lru_cache(maxsize=128)
def task_file_kind(text: str) -> TaskKind:
    """The kind of a task file's text (built once per text); raises TaskFileError."""
    return make_kind(build(text))
