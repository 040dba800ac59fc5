"""Datasets an export can hold: each gives its columns and streams its rows as dicts.

Kind-specific columns always come from the task kind (its column declarations, export_item),
so a new kind needs nothing here. Rows come from `.iterator()` querysets: memory stays flat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django.db.models import F, FilteredRelation, JSONField, Q, QuerySet, Value

from annotation.kinds import kind_of
from annotation.models import AdjudicationTask, FinalLabel, Item, Project, Response
from annotation.selectors.adjudication import (
    ADJUDICATION_COLUMNS,
    FINAL_COLUMNS,
    adjudication_rows,
    final_label_rows,
    final_values,
    project_adjudicates,
)
from annotation.selectors.responses import annotation_columns, annotation_rows, has_suggestions
from quality.agreement import aggregate_columns
from quality.level_results import level_columns
from quality.models import QualityRun
from quality.selectors import (
    annotator_decisions,
    annotator_metric_columns,
    kept_response_ids,
    latest_run,
    response_decisions,
    response_value_columns,
    response_values,
)

from .base import CHUNK_SIZE, EXACT, REASON_SEPARATOR, Dataset, ExportUnavailable, Options
from .checks import checks
from .label_studio import label_studio
from .participants import participants

__all__ = ["CHUNK_SIZE", "EXACT", "Dataset", "ExportUnavailable", "Options"]


def _require_run(project: Project, dataset: str) -> QualityRun:
    run = latest_run(project)
    if run is None:
        raise ExportUnavailable(f"The {dataset} export needs a finished quality run; run quality first.")
    return run


def _responses_total(project: Project, response_ids: Any = None) -> Callable[[], int]:
    def total() -> int:
        queryset = Response.objects.filter(item__project=project, item__check_answer__isnull=True)
        return (queryset if response_ids is None else queryset.filter(pk__in=response_ids)).count()

    return total


#: the too-fast rule's values of each answer (quality.speed), which the raw export carries too
SPEED_COLUMNS = ("too_fast", "too_fast_threshold", "too_fast_pages")


def _speed_columns(run: QualityRun | None) -> list[str]:
    """The too-fast values the run stored (none when its rule was off: the exports stay as they were)."""
    stored = response_value_columns(run) if run is not None else []
    return [column for column in SPEED_COLUMNS if column in stored] if "too_fast" in stored else []


def _with_values(
    rows: Iterator[dict[str, Any]], run: QualityRun | None, columns: list[str]
) -> Iterator[dict[str, Any]]:
    """`rows` with the run's values under `columns` (None for a response the run did not judge)."""
    if run is None or not columns:
        yield from rows
        return
    for chunk in _chunks(rows, CHUNK_SIZE):
        values = response_values(run, [row["response_id"] for row in chunk])
        for row in chunk:
            derived = values.get(row["response_id"], {})
            row.update({column: derived.get(column) for column in columns})
            yield row


def raw(project: Project, options: Options = EXACT) -> Dataset:
    """Every response, finished or not, flattened to the kind's annotation columns; work a
    recruiting site has not confirmed is in it, marked (`confirmed` false). When the latest run
    judged time on task, each row's seconds per page and the run's too-fast flag and thresholds."""
    text = options.item_text
    run = latest_run(project)
    speed = _speed_columns(run)
    timed, shown = bool(speed), has_suggestions(project)

    def rows() -> Iterator[dict[str, Any]]:
        source = annotation_rows(
            project, chunk_size=CHUNK_SIZE, item_text=text, keep_unconfirmed=True, page_seconds=timed, suggestions=shown
        )
        return _with_values(source, run, speed)

    return Dataset(
        "raw",
        lambda: (
            annotation_columns(project, item_text=text, keep_unconfirmed=True, page_seconds=timed, suggestions=shown)
            + speed
        ),
        rows,
        _responses_total(project),
    )


def clean(project: Project, options: Options = EXACT) -> Dataset:
    """Only the responses the latest finished quality run keeps (joined as a subquery), with
    the values the run derived for each (e.g. a calibrated rating) as extra columns; never work
    a recruiting site has not confirmed (the run leaves it out; so does this, should the site
    withdraw it after the run). With the too-fast rule, each row's seconds per page too."""
    run = _require_run(project, "clean")
    kept = kept_response_ids(run)
    text = options.item_text
    timed, shown = bool(_speed_columns(run)), has_suggestions(project)
    base = annotation_columns(project, item_text=text, page_seconds=timed, suggestions=shown)
    # a value the run derived under a base column's name (the too-fast rule's seconds) takes
    # that column's place in the row: each column is written once
    derived = response_value_columns(run)
    extra = [column for column in derived if column not in base]

    def rows() -> Iterator[dict[str, Any]]:
        source = annotation_rows(
            project, response_ids=kept, chunk_size=CHUNK_SIZE, item_text=text, page_seconds=timed, suggestions=shown
        )
        return _with_values(source, run, derived)

    return Dataset("clean", lambda: base + extra, rows, _responses_total(project, kept))


def _chunks(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _item_dataset(project: Project, name: str, row_of: Callable[..., Any]) -> Dataset:
    """Items in import order, each turned into a released-format row (None: no row of its own;
    a list: several),
    with the latest run's diagnostics (None without a run)."""
    run = latest_run(project)
    queryset = Item.objects.data().filter(project=project).order_by("id")
    pairs: QuerySet[Item, tuple[Any, Any, Any]]
    if run is None:
        pairs = queryset.annotate(diagnostics=Value(None, output_field=JSONField())).values_list(
            "pk", "payload", "diagnostics"
        )
    else:
        result = FilteredRelation("quality_results", condition=Q(quality_results__run=run))
        with_result = queryset.annotate(result=result).annotate(diagnostics=F("result__diagnostics"))
        pairs = with_result.values_list("pk", "payload", "diagnostics")

    def keyed() -> Iterator[tuple[int, dict[str, Any]]]:
        for pk, payload, diagnostics in pairs.iterator(CHUNK_SIZE):
            row = row_of(payload, diagnostics)
            if isinstance(row, list):  # a format with several rows per item
                yield from ((pk, one) for one in row)
            elif row is not None:
                yield pk, row

    def rows() -> Iterator[dict[str, Any]]:
        return (row for _, row in keyed())

    def columns() -> list[str]:
        return _ordered_union(row.keys() for row in rows())

    return Dataset(name, columns, rows, queryset.count, sparse=True, keyed=keyed)


def items(project: Project, options: Options = EXACT) -> Dataset:
    """Every item in the kind's released format plus the latest run's diagnostics, and the
    aggregated label of each nominal/ordinal label field with its confidence (majority and its
    share, Dawid-Skene's label and posterior; then the label of the field's method, its posterior,
    bootstrap interval and the method's name; `quality.agreement.aggregate_columns`); of each
    interval field the mean, median, SD, bootstrap interval of the mean and mean z-score, and of
    each span field the spans a majority marked and the spans per label
    (`quality.level_results.level_columns`), unless the kind's released row is not one item
    (`TaskKind.item_results`)."""
    kind = kind_of(project)
    levels = level_columns(kind.label_fields()) if kind.item_results else []
    aggregated = aggregate_columns(kind.label_fields()) + levels

    def row_of(payload: dict[str, Any], diagnostics: dict[str, Any] | None) -> dict[str, Any] | None:
        row = kind.export_item(payload, diagnostics)
        if row is not None:
            row.update({column: (diagnostics or {}).get(column) for column in aggregated})
        return row

    return _item_dataset(project, "items", row_of)


def _ordered_union(key_lists: Iterable[Iterable[str]]) -> list[str]:
    """All keys, each new one placed right after its predecessor in the row that has it, so
    optional released keys keep their place (an optional `id` first, a `label` after the options)."""
    columns: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for keys in key_lists:
        keys = tuple(keys)
        if keys in seen:
            continue
        seen.add(keys)
        previous = None
        for key in keys:
            if key not in columns:
                columns.insert(0 if previous is None else columns.index(previous) + 1, key)
            previous = key
    return columns


ANNOTATOR_COLUMNS = ["annotator_id", "annotator", "channel", "keep", "reasons"]
DECISION_COLUMNS = ["response_id", "item_id", "external_id", "annotator_id", "annotator", "keep", "reasons"]


def annotators(project: Project, options: Options = EXACT) -> Dataset:
    """The latest run's verdict on every annotator, with its metrics and reasons."""
    run = _require_run(project, "annotators")
    decisions = annotator_decisions(run)
    metrics = annotator_metric_columns(run)

    def rows() -> Iterator[dict[str, Any]]:
        fields = ("annotator_id", "annotator__external_id", "annotator__channel", "keep", "reasons", "metrics")
        for aid, ext, channel, keep, reasons, values in decisions.values_list(*fields).iterator(CHUNK_SIZE):
            row = {
                "annotator_id": aid,
                "annotator": ext,
                "channel": channel,
                "keep": keep,
                "reasons": REASON_SEPARATOR.join(reasons),
            }
            for name in metrics:
                row[name] = values.get(name)
            yield row

    return Dataset("annotators", lambda: ANNOTATOR_COLUMNS + metrics, rows, decisions.count)


def decisions(project: Project, options: Options = EXACT) -> Dataset:
    """The latest run's decision on every response, with the reasons it was dropped."""
    queryset = response_decisions(_require_run(project, "decisions"))

    def rows() -> Iterator[dict[str, Any]]:
        fields = (
            "response_id",
            "response__item_id",
            "response__item__external_id",
            "response__assignment__annotator_id",
            "response__assignment__annotator__external_id",
            "keep",
            "reasons",
        )
        for rid, item_id, ext, aid, aext, keep, reasons in queryset.values_list(*fields).iterator(CHUNK_SIZE):
            yield {
                "response_id": rid,
                "item_id": item_id,
                "external_id": ext,
                "annotator_id": aid,
                "annotator": aext,
                "keep": keep,
                "reasons": REASON_SEPARATOR.join(reasons),
            }

    return Dataset("decisions", lambda: list(DECISION_COLUMNS), rows, queryset.count)


def final(project: Project, options: Options = EXACT) -> Dataset:
    """The adjudication stage's final labels: per item and field the value (JSON), how it was
    reached (agreed / adjudicated / unresolved), who decided it and why it stayed unresolved."""
    queryset = FinalLabel.objects.filter(item__project=project)
    return Dataset("final", lambda: list(FINAL_COLUMNS), lambda: final_label_rows(project), queryset.count)


def final_items(project: Project, options: Options = EXACT) -> Dataset:
    """Items in the kind's released format built from their final labels (`TaskKind.final_item`);
    unresolved fields are left out (empty), items without final labels have no row; a file
    without rows still has its header line."""
    kind, values = kind_of(project), final_values(project)
    queryset = Item.objects.filter(project=project, pk__in=list(values)).order_by("id")

    def keyed() -> Iterator[tuple[int, dict[str, Any]]]:
        for item_id, payload in queryset.values_list("pk", "payload").iterator(CHUNK_SIZE):
            row = kind.final_item(payload, values[item_id])
            if row is not None:
                yield item_id, row

    def rows() -> Iterator[dict[str, Any]]:
        return (row for _, row in keyed())

    def columns() -> list[str]:
        # without rows, the header still says what a row holds: the released keys of the
        # project's first item with no final labels (a kind without such a format: the item id)
        found = _ordered_union(row.keys() for row in rows())
        if found:
            return found
        first = Item.objects.data().filter(project=project).order_by("id").values_list("payload", flat=True).first()
        empty = None if first is None else kind.final_item(first, {})
        return list(empty) if empty is not None else ["item_id"]

    return Dataset(
        "final_items",
        columns,
        rows,
        queryset.count,
        sparse=True,
        keyed=keyed,
    )


def adjudications(project: Project, options: Options = EXACT) -> Dataset:
    """Every adjudication task with the adjudicator's decisions as given (the third annotation)."""
    queryset = AdjudicationTask.objects.filter(item__project=project)
    return Dataset(
        "adjudications", lambda: list(ADJUDICATION_COLUMNS), lambda: adjudication_rows(project), queryset.count
    )


Builder = Callable[[Project, Options], Dataset]
#: dataset name -> (builder, what it holds, in words for the researcher)
DATASETS: dict[str, tuple[Builder, str]] = {
    "raw": (raw, "every annotation, as collected"),
    "clean": (clean, "annotations kept by the latest quality run"),
    "items": (items, "items in the released format, with quality columns"),
    "annotators": (annotators, "annotators: accuracy, kept or dropped, and why"),
    "decisions": (decisions, "every annotation: kept or dropped, and why"),
    "final": (final, "final labels after adjudication: value, agreed/adjudicated/unresolved, who, why"),
    "final_items": (final_items, "items in the released format from their final labels (unresolved left out)"),
    "adjudications": (adjudications, "the adjudicators' decisions, with the two annotators of each item"),
    "participants": (participants, "study steps per annotator and batch: consent, check attempts, exit survey"),
    "checks": (checks, "every answer to a check or training item: who, which item, expected and given, passed"),
    "label_studio": (label_studio, "Label Studio's JSON: a task per item with its completed annotations"),
}
#: the file formats a dataset is written in (the first is its default); any other: TABULAR
TABULAR = ("csv", "tsv", "jsonl")
DATASET_FORMATS: dict[str, tuple[str, ...]] = {"label_studio": ("json",)}


def dataset_formats(name: str) -> tuple[str, ...]:
    """The formats dataset `name` is written in: a table's rows as CSV, TSV or JSON Lines; Label
    Studio's tasks as one JSON array, the file Label Studio imports."""
    return DATASET_FORMATS.get(name, TABULAR)


def _item_builder(name: str, row_of: Callable[..., Any]) -> Builder:
    """The builder of one of the kind's further released formats."""
    return lambda project, options: _item_dataset(project, name, row_of)


#: datasets only a project with the adjudication stage fills
ADJUDICATION_DATASETS = ("final", "final_items", "adjudications")


def dataset_unavailable(project: Project, name: str) -> str:
    """Why `name` cannot be filled for the project (empty: it can)."""
    if name in ADJUDICATION_DATASETS and not project_adjudicates(project):
        return (
            f"the {name} dataset holds final labels after adjudication, and project {project.pk} "
            f"({project.name}) has no batch with the adjudication stage: export raw, clean or items instead"
        )
    return ""


def offered_datasets(project: Project) -> dict[str, tuple[Builder, str]]:
    """The datasets the project can fill, as the report and the export form offer them."""
    adjudicates = project_adjudicates(project)
    return {
        name: spec
        for name, spec in project_datasets(project).items()
        if adjudicates or name not in ADJUDICATION_DATASETS
    }


def project_datasets(project: Project) -> dict[str, tuple[Builder, str]]:
    """The standard datasets plus the further released formats of the project's kind."""
    found = dict(DATASETS)
    for name, spec in kind_of(project).item_exports().items():
        found[name] = (_item_builder(name, spec.row), spec.description)
    return found
