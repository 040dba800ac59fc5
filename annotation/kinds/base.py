"""The task-kind interface: everything one dataset's annotation flow needs, in one module.

A fifth kind is a new module with a `TaskKind` subclass decorated with `@register`; the flow
engine, channels, quality runs and exporters only ever talk to this interface.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django import forms
from django.forms import renderers
from django.utils.functional import Promise

from . import model_task as model_tasks
from . import own_values
from .model_task import ModelTask
from .own_values import ValueFormat
from .presets import ChannelPreset
from .problems import ImportProblem as ImportProblem  # re-exported: the kinds import it from here
from .results import GENERIC_SETTINGS, KindPlot, LabelField, aggregation_settings_problems
from .scoring import ProjectResults, Scorer
from .suggestions import Place, Suggestion, placed
from .typed import ImportedAnnotation, ImportedPrediction, TypedAnswer, generic_typed_answers, typed_labels


@dataclass(frozen=True)
class ParsedItem:
    """One item of an import file; `annotations`: the annotations the file carries for it (made
    elsewhere, e.g. in Label Studio), checked by the kind; `skipped_annotations`: those left out
    (cancelled ones)."""

    external_id: str
    payload: dict[str, Any]
    line: int
    group_key: str = ""
    annotations: tuple[ImportedAnnotation, ...] = ()
    skipped_annotations: int = 0
    ignored_keys: frozenset[str] = frozenset()  # keys of the record read as carrying no data


@dataclass(frozen=True)
class FigureStyle:
    """How the quality report names and prints one of a kind's figures (a summary key, an
    annotator metric, an item diagnostic). `unit`: share (a 0-1 fraction, printed as a
    percentage), count, coefficient (3 decimals), p_value, seconds, number (3 decimals), text."""

    label: str
    unit: str = "number"


@dataclass(frozen=True)
class Page:
    """One screen of an item's flow.

    `locks`: once saved, the answer can never change (a choice made before reading the passage).
    `min_seconds`: the save path refuses the page sooner than this after it was shown.
    The template receives only what `TaskKind.page_context` reveals for this page.
    """

    slug: str
    title: str | Promise  # a lazy translation: the annotator's language is chosen per request
    template: str
    form_class: type["PageForm"]
    locks: bool = False
    min_seconds: float = 0.0


class PageForm(forms.Form):
    """Base for a page's form: it sees the item payload so it can validate against it.

    Its widgets render with Django's Jinja2 widget templates (the pages are Jinja2 too), through
    the documented `Form.default_renderer`; the admin keeps the project's default renderer."""

    default_renderer = renderers.Jinja2()

    def __init__(self, *args: Any, payload: Mapping[str, Any], answers: Mapping[str, Any], **kwargs: Any):
        self.payload = payload
        self.answers = answers
        super().__init__(*args, **kwargs)

    def answer(self) -> dict[str, Any]:
        """The JSON-able answer stored for this page (default: the cleaned data)."""
        return dict(self.cleaned_data)


@dataclass(frozen=True)
class QualityOutcome:
    """What a kind's quality rules decided; the quality app stores it with reasons.

    `responses`: one row per response id with `keep` (bool) and `reasons` (list[str]);
    `annotators`: one row per annotator id with `keep`, `reasons` and metric columns;
    `items`: one row per item id with diagnostic columns; `summary`: run-level figures.
    """

    responses: Any
    annotators: Any
    items: Any
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemExport:
    """A further released format of a kind's items (e.g. a shared task's gold file).

    `row(payload, diagnostics)` returns the item's row, or None when the item adds no row of
    its own (a pair-level format writes a pair once, from its first item), or a list of rows
    when the format has several per item (one per annotation).
    """

    description: str
    row: Callable[[Mapping[str, Any], Mapping[str, Any] | None], dict[str, Any] | list[dict[str, Any]] | None]


@dataclass(frozen=True)
class Column:
    """One column of a kind's annotation row, declared once: its name and how its value comes
    from the item's payload and the response's answers. `payload_keys`: the payload keys
    `value` reads, so an export reads only those of each item (never the passages it does not
    write); None: the whole payload."""

    name: str
    value: Callable[[Mapping[str, Any], Mapping[str, Any]], Any]
    payload_keys: tuple[str, ...] | None = ()

    @classmethod
    def answer(cls, name: str, page: str, key: str) -> "Column":
        """`(answers.get(page) or {}).get(key)`: one value of one page's answer."""
        return cls(name, lambda payload, answers: (answers.get(page) or {}).get(key))

    @classmethod
    def item(cls, name: str, key: str | None = None) -> "Column":
        """`payload.get(key)` (key defaults to the column's name): a value of the item alone."""
        key = key or name
        return cls(name, lambda payload, answers: payload.get(key), payload_keys=(key,))


class TaskKind(ABC):
    slug: ClassVar[str]
    title: ClassVar[str]
    default_instructions: ClassVar[str | Promise] = ""
    #: what import accepts, in words for the researcher
    file_format: ClassVar[str] = ""
    #: project settings with the papers' values as defaults
    default_settings: ClassVar[dict[str, Any]] = {}
    #: the kind's annotation columns, in order: `annotation_columns()` and `annotation_row()`
    #: are derived from this one declaration
    columns: ClassVar[tuple[Column, ...]] = ()
    #: the item's own text, written beside each annotation when an export asks for it
    #: (option `item_text`: a researcher reads the annotation with what was annotated)
    item_text_columns: ClassVar[tuple[Column, ...]] = ()
    #: an annotator gets at most one item of a `group_key`, ever, across the project's batches
    #: (e.g. one of a pair's two contexts)
    exclusive_groups: ClassVar[bool] = False
    #: the Hugging Face Hub's task categories of the kind's dataset (its card's `task_categories`);
    #: empty: what the label fields suggest (`hub_task_categories`)
    task_categories: ClassVar[tuple[str, ...]] = ()
    #: columns of the `items` export that the released format writes as numbers in text (a score
    #: with the release's digits): a typed copy (a Hub folder) reads them as numbers, "" as empty
    numeric_text_columns: ClassVar[tuple[str, ...]] = ()
    #: whether the `items` export adds each item's results of its interval and span fields (mean,
    #: z-score, agreed spans: `quality.level_results`); False where a released row is not one
    #: item (a pair's two items written as one row, with the release's own scores)
    item_results: ClassVar[bool] = True
    #: where each label field is asked (label field -> `Place`): a model's suggestion goes there
    suggestion_places: ClassVar[Mapping[str, Place]] = {}

    # --- import --------------------------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> list[ParsedItem]:
        """Read a released file (already decoded) into items; raise ImportProblem on bad input."""

    def iter_parse(self, text: str) -> Iterator[ParsedItem]:
        """`parse`, item by item, so an import can write items while later lines are still being
        read (PostgreSQL's COPY). A kind with large files overrides it with a generator and builds
        `parse` on it; this default reads the whole file first. A bad line raises ImportProblem
        when it is reached, after earlier items were yielded: callers roll back."""
        return iter(self.parse(text))

    # --- annotation flow -----------------------------------------------------------
    @abstractmethod
    def pages(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> Sequence[Page]:
        """The ordered pages one item walks through, given the answers so far (a kind may add or
        skip a page by an earlier answer; the pages already answered must stay)."""

    @abstractmethod
    def page_context(self, payload: Mapping[str, Any], page: Page, answers: Mapping[str, Any]) -> dict[str, Any]:
        """What this page reveals of the item; nothing else reaches the template."""

    def page(self, payload: Mapping[str, Any], slug: str, answers: Mapping[str, Any]) -> Page:
        for page in self.pages(payload, answers):
            if page.slug == slug:
                return page
        raise KeyError(slug)

    def suggestions(self, page: Page, form: PageForm, labels: Mapping[str, Any]) -> list[Suggestion]:
        """A model's labels (label field -> value) that `page`'s `form` asks, as the page shows them."""
        return placed(page, form, labels, self.suggestion_places)

    # --- results -------------------------------------------------------------------
    def gold(self, payload: Mapping[str, Any]) -> Any | None:
        """The answer key where one exists."""
        return None

    def gold_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The answer key by label field, each value as an annotation's label of the field has it
        (a model's predictions are scored against it); default: none."""
        return {}

    def annotation_columns(self) -> list[str]:
        """Kind-specific columns of a raw annotation row, in order (from `columns`)."""
        return [column.name for column in self.columns]

    def annotation_row(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
        """One response flattened to `annotation_columns()`."""
        return {column.name: column.value(payload, answers) for column in self.columns}

    def item_text_row(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The item's text columns (`item_text_columns`) of one item."""
        return {column.name: column.value(payload, {}) for column in self.item_text_columns}

    def payload_keys(self, *, item_text: bool = False) -> tuple[str, ...] | None:
        """The payload keys the rows read (None: the whole payload), from the declarations."""
        keys: list[str] = []
        for column in self.columns + (self.item_text_columns if item_text else ()):
            if column.payload_keys is None:
                return None
            keys.extend(k for k in column.payload_keys if k not in keys)
        return tuple(keys)

    @abstractmethod
    def quality(self, frame: Any, settings: Mapping[str, Any]) -> QualityOutcome:
        """Run the kind's quality rules on a DataFrame of annotation rows (pure)."""

    @abstractmethod
    def export_item(self, payload: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """An item in the kind's released format, with quality columns added.

        None: the item has no row of its own (a released format with one row per group of
        items writes the group from its first item; exports walk items in import order).
        """

    def item_exports(self) -> dict[str, ItemExport]:
        """Further released formats, by dataset name, offered beside the standard exports."""
        return {}

    def scorers(self) -> dict[str, Scorer]:
        """The kind's reports and scorers by name (a paper's summary table, a shared task's
        scorer), run by `manage.py score` and the scores API; default: none."""
        return {}

    def prediction_scorers(self, results: ProjectResults, predicted: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The kind's own scorers run on one model's predictions (`predicted`: item external id ->
        label field -> value) against the project's results, by scorer name; each raises
        ScoreProblem or NothingToScore where it cannot score. Default: none."""
        return {}

    def item_diagnostic_columns(self) -> list[str]:
        return []

    def kept_items(self, frame: Any, items: Any, responses: Any) -> Any:
        """`items` (from `quality`) on what the run finally keeps (`responses`: `quality`'s, `keep`
        after the generic rules and the researcher's verdicts): a kind recomputes them from it."""
        return items

    def figure_styles(self) -> Mapping[str, FigureStyle]:
        """Labels and units of the kind's own figures in the quality report, by key (the
        report's generic ones cover the rest); default: none."""
        return {}

    def suggested_annotators_per_item(self, language: str) -> int:
        """The paper's number of distinct annotators per item: a batch's default."""
        return 3

    def channel_presets(self) -> dict[str, ChannelPreset]:
        """Named recruiting setups a researcher may pick, by channel slug (e.g. the paper's MTurk
        qualifications); default: none."""
        return {}

    def settings_for(self, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
        """The kind's defaults and the generic rules' (`GENERIC_SETTINGS`: agreement, too fast), then `overrides`;
        `settings_for(None)` names every setting a project may have."""
        merged = {**GENERIC_SETTINGS, **self.default_settings}
        merged.update(overrides or {})
        return merged

    def settings_problems(self, settings: Mapping[str, Any]) -> list[str]:
        """What is wrong with the values of `settings` that the kind can tell before a run (the
        aggregation method per label field, the bootstrap rounds); empty: nothing. Names of
        settings the kind lacks are the caller's check (`settings_for(None)`)."""
        return aggregation_settings_problems(settings, self.label_fields())

    # --- agreement and aggregation (quality runs, the quality report) ------------------
    def label_fields(self) -> Sequence[LabelField]:
        """The fields whose agreement a quality run measures, the kind's main label first (the
        per-annotator agreement rule judges that one unless `annotator_kappa_field` names another)."""
        return ()

    def hub_task_categories(self) -> list[str]:
        """The Hub's task categories of a dataset of this kind: the kind's own, else labels to
        predict make a classification task (the Hub files a rating under it too), none: other."""
        if self.task_categories:
            return list(self.task_categories)
        return ["text-classification"] if self.label_fields() else ["other"]

    def marked_spans(self, payload: Mapping[str, Any]) -> Sequence[tuple[str, str, str]]:
        """(page, question, the item's text) of each question whose answer marks spans in it."""
        return ()

    def typed_answers(self, row: Mapping[str, Any]) -> list[TypedAnswer]:
        """The label fields' answers in one annotation row, typed for formats that type them (a
        Label Studio export); default: by each field's level (`generic_typed_answers`)."""
        return generic_typed_answers(self.label_fields(), row)

    def prediction_typed_answers(self, labels: Mapping[str, Any], payload: Mapping[str, Any] | None = None) -> list:
        """A model's prediction (field -> value) of the item with `payload` typed as `typed_answers`
        types an annotation's labels, for Label Studio's export; default: by each field's level."""
        return typed_labels(self.label_fields(), labels)

    # --- adjudication (annotation.services.adjudication) ----------------------------------
    def adjudication_fields(self, payload: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
        """The fields an item's answer has for adjudication, by name, with their JSON-able values
        (default: the label fields, read from the annotation row)."""
        row = self.annotation_row(payload, answers)
        return {f.name: f.value(row) for f in self.label_fields()}

    def same(self, field: str, a: Any, b: Any) -> bool:
        """Whether two annotators' values of `field` agree (default: equal; set fields as sets)."""
        level = next((f.level for f in self.label_fields() if f.name == field), None)
        if level == "set" and a is not None and b is not None:
            return set(a) == set(b)
        return a == b

    def adjudication_title(self, field: str) -> str:
        """What the adjudicator's page calls a field."""
        return next((str(f.title) for f in self.label_fields() if f.name == field and f.title), field)

    def adjudication_item(self, payload: Mapping[str, Any]) -> dict[str, str]:
        """What the adjudicator reads of the item, by heading (default: `item_text_columns`)."""
        return {name: "" if text is None else str(text) for name, text in self.item_text_row(payload).items()}

    def adjudication_display(self, payload: Mapping[str, Any], field: str, value: Any) -> str:
        """A value as the adjudicator reads it."""
        return "—" if value is None else str(value)

    def adjudication_format(self, payload: Mapping[str, Any], field: str) -> ValueFormat:
        """How the adjudicator types an own value of `field` (default: from the label field: one
        of an ordinal's levels, a number, a JSON list of a set, else any text)."""
        return own_values.label_format(self._label_field(field))

    def adjudication_value(self, payload: Mapping[str, Any], field: str, text: str) -> Any:
        """The adjudicator's own value typed as text (`adjudication_format` says how); raises
        ValueError with the reason when it is not one (default: JSON when it parses, e.g. a
        number, else the text; an ordinal's levels, an interval's numbers and a set's lists only)."""
        return own_values.label_value(self._label_field(field), text)

    def _label_field(self, field: str) -> LabelField | None:
        return next((f for f in self.label_fields() if f.name == field), None)

    def prediction_value(self, payload: Mapping[str, Any], field: str, value: Any) -> Any:
        """A model's value of `field` as a prediction file gives it (a JSON value), checked and
        stored as the adjudicator's own value would be (`adjudication_value`; a text as it is,
        anything else as its JSON). Raises ValueError with the reason when the field refuses it."""
        return self.adjudication_value(payload, field, value if isinstance(value, str) else json.dumps(value))

    def model_task(self, payload: Mapping[str, Any]) -> ModelTask:
        """What a language model reads of the item and is asked (annotation.llm.prompts); default:
        the adjudicator's view of the item and a question per label field, by its level."""
        return model_tasks.from_label_fields(self.label_fields(), self.adjudication_item(payload))

    def imported_predictions(self, text: str) -> list[ImportedPrediction] | None:
        """The predictions in another tool's file of tasks (Label Studio's, for a kind whose item
        import reads them), each with its item's id and its values by field, still to be checked
        by `prediction_value`; None (default): the text is not such a file."""
        return None

    def final_export_value(self, field: str, value: Any) -> Any:
        """A final label's value as the final-labels export gives it to a person (default: as
        stored; e.g. sentence indexes as the numbers the page shows, from 1)."""
        return value

    def final_item(self, payload: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, Any] | None:
        """The item in the kind's released format built from its final labels (`final`: field ->
        value, unresolved fields left out); None: the kind has no such format."""
        return None

    def final_quality(self, finals: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
        """Figures for the quality report's summary from the final labels of the items whose
        fields are all resolved (`finals`: (payload, field -> value)); e.g. scores against the
        import's reference labels. Default: none."""
        return {}

    def report_plots(self, frame: Any) -> list[KindPlot]:
        """The kind's own plots for the quality report, as data, from the kept annotation rows
        (a DataFrame of `annotation_columns`); the report draws them."""
        return []
