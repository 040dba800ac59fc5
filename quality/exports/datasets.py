"""Datasets an export can hold: each gives its columns and streams its rows as dicts.

Kind-specific columns always come from the task kind (annotation_columns, export_item), so a
new kind needs nothing here. Rows come from `.iterator()` querysets or server-side cursors:
memory stays flat.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from django.db.models import F, FilteredRelation, JSONField, Q, Value

from annotation import export_sql
from annotation.kinds import get_kind
from annotation.models import Item, Project
from annotation.selectors import (
    annotation_columns, annotation_id_bounds, annotation_rows, annotation_value_chunks, annotation_value_spans,
)
from quality.agreement import aggregate_columns
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

CHUNK_SIZE = 2000
REASON_SEPARATOR = "; "


class ExportUnavailable(Exception):
    """The dataset cannot be made yet (e.g. no finished quality run); the message says why."""


@dataclass(frozen=True)
class Dataset:
    """`sparse`: a row may lack some columns (written empty in CSV, absent in JSONL).

    `value_chunks(size)`, where a dataset has it: the same rows as cells in column order, in
    lists of up to `size` rows, for the delimited writers (no dict per row); JSONL, which
    writes keys, always reads `rows`.

    `id_bounds()` and `value_spans(spans, size)`, where a dataset has them: the bounds of its
    rows' ids (None: not readable span by span) and its value chunks span by span, as (span's
    index, chunk) pairs, so that two processes can write one export (quality/exports/forked.py).

    `text_chunks(delimiter, terminator, quoting, render)`, where a dataset has it: the same
    rows already written as lines (no header, UTF-8 bytes) by the database
    (`annotation.export_sql`), or None where that path does not apply to this project,
    database or dialect.
    """

    name: str
    columns: Callable[[], list[str]]
    rows: Callable[[], Iterator[dict[str, Any]]]
    sparse: bool = False
    value_chunks: Callable[[int], Iterator[list[Sequence[Any]]]] | None = None
    text_chunks: Callable[..., Iterator[bytes] | None] | None = None
    id_bounds: Callable[[], tuple[int, int] | None] | None = None
    value_spans: Callable[[Sequence[tuple[int, int]], int], Iterator[tuple[int, list[Sequence[Any]]]]] | None = None


def _require_run(project: Project, dataset: str) -> QualityRun:
    run = latest_run(project)
    if run is None:
        raise ExportUnavailable(f"The {dataset} export needs a finished quality run; run quality first.")
    return run


def raw(project: Project) -> Dataset:
    """Every response, finished or not, flattened to the kind's annotation columns."""
    return Dataset(
        "raw",
        lambda: annotation_columns(project),
        lambda: annotation_rows(project, chunk_size=CHUNK_SIZE),
        value_chunks=lambda size: annotation_value_chunks(project, chunk_size=size),
        text_chunks=_sql_lines(project, None),
        id_bounds=lambda: annotation_id_bounds(project),
        value_spans=lambda spans, size: annotation_value_spans(project, spans, chunk_size=size),
    )


def _sql_lines(project: Project, response_ids: Any) -> Callable[..., Iterator[bytes] | None]:
    """`Dataset.text_chunks` of the raw or clean dataset (`response_ids`: the kept ones)."""

    def text_chunks(delimiter: str, terminator: str, quoting: Any, render: Any) -> Iterator[bytes] | None:
        return export_sql.text_chunks(project, response_ids=response_ids, delimiter=delimiter,
                                      terminator=terminator, quoting=quoting, render=render)

    return text_chunks


def clean(project: Project) -> Dataset:
    """Only the responses the latest finished quality run keeps (joined as a subquery), with
    the values the run derived for each (e.g. CoSimLex's calibrated rating) as extra columns."""
    run = _require_run(project, "clean")
    kept = kept_response_ids(run)
    extra = response_value_columns(run)

    def rows() -> Iterator[dict[str, Any]]:
        source = annotation_rows(project, response_ids=kept, chunk_size=CHUNK_SIZE)
        if not extra:
            yield from source
            return
        for chunk in _chunks(source, CHUNK_SIZE):
            values = response_values(run, [row["response_id"] for row in chunk])
            for row in chunk:
                derived = values.get(row["response_id"], {})
                row.update({column: derived.get(column) for column in extra})
                yield row

    def value_chunks(size: int) -> Iterator[list[Sequence[Any]]]:
        source = annotation_value_chunks(project, response_ids=kept, chunk_size=size)
        if not extra:
            yield from source
            return
        for chunk in source:
            values = response_values(run, [row[0] for row in chunk])  # row[0]: response_id
            yield [row + tuple(_derived(values, row[0], extra)) for row in chunk]

    # An extra column named like an annotation column replaces that column's value in `rows`:
    # then only the dicts say it right.
    shadows = bool(set(extra) & set(annotation_columns(project)))
    return Dataset(
        "clean", lambda: annotation_columns(project) + extra, rows, value_chunks=None if shadows else value_chunks,
        text_chunks=None if extra else _sql_lines(project, kept),
        id_bounds=None if extra else lambda: annotation_id_bounds(project, response_ids=kept),
        value_spans=None if extra else lambda spans, size: annotation_value_spans(
            project, spans, response_ids=kept, chunk_size=size),
    )


def _derived(values: dict[int, dict[str, Any]], response_id: int, extra: list[str]) -> Iterator[Any]:
    derived = values.get(response_id, {})
    return (derived.get(column) for column in extra)


def _chunks(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _item_dataset(project: Project, name: str, row_of: Callable[..., dict[str, Any] | None]) -> Dataset:
    """Items in import order, each turned into a released-format row (None: no row of its own),
    with the latest run's diagnostics (None without a run)."""
    run = latest_run(project)
    queryset = Item.objects.filter(project=project).order_by("id")
    if run is None:
        pairs = queryset.annotate(diagnostics=Value(None, output_field=JSONField()))
    else:
        pairs = queryset.annotate(result=FilteredRelation("quality_results", condition=Q(quality_results__run=run)))
        pairs = pairs.annotate(diagnostics=F("result__diagnostics"))
    pairs = pairs.values_list("payload", "diagnostics")

    def rows() -> Iterator[dict[str, Any]]:
        for payload, diagnostics in pairs.iterator(CHUNK_SIZE):
            row = row_of(payload, diagnostics)
            if row is not None:
                yield row

    def columns() -> list[str]:
        return _ordered_union(row.keys() for row in rows())

    return Dataset(name, columns, rows, sparse=True)


def items(project: Project) -> Dataset:
    """Every item in the kind's released format plus the latest run's diagnostics, and the
    aggregated label of each nominal/ordinal label field with its confidence (majority and its
    share, Dawid-Skene's label and posterior; `quality.agreement.aggregate_columns`)."""
    kind = get_kind(project.kind)
    aggregated = aggregate_columns(kind.label_fields())

    def row_of(payload: dict[str, Any], diagnostics: dict[str, Any] | None) -> dict[str, Any] | None:
        row = kind.export_item(payload, diagnostics)
        if row is not None:
            row.update({column: (diagnostics or {}).get(column) for column in aggregated})
        return row

    return _item_dataset(project, "items", row_of)


def _ordered_union(key_lists: Iterable[Iterable[str]]) -> list[str]:
    """All keys, each new one placed right after its predecessor in the row that has it, so
    optional released keys keep their place (ReCAM's `id` first, `label` after the options)."""
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


def annotators(project: Project) -> Dataset:
    """The latest run's verdict on every annotator, with its metrics and reasons."""
    run = _require_run(project, "annotators")
    decisions = annotator_decisions(run)
    metrics = annotator_metric_columns(run)

    def rows() -> Iterator[dict[str, Any]]:
        fields = ("annotator_id", "annotator__external_id", "annotator__channel", "keep", "reasons", "metrics")
        for aid, ext, channel, keep, reasons, values in decisions.values_list(*fields).iterator(CHUNK_SIZE):
            row = {"annotator_id": aid, "annotator": ext, "channel": channel, "keep": keep,
                   "reasons": REASON_SEPARATOR.join(reasons)}
            for name in metrics:
                row[name] = values.get(name)
            yield row

    return Dataset("annotators", lambda: ANNOTATOR_COLUMNS + metrics, rows)


def decisions(project: Project) -> Dataset:
    """The latest run's decision on every response, with the reasons it was dropped."""
    queryset = response_decisions(_require_run(project, "decisions"))

    def rows() -> Iterator[dict[str, Any]]:
        fields = ("response_id", "response__item_id", "response__item__external_id",
                  "response__assignment__annotator_id", "response__assignment__annotator__external_id",
                  "keep", "reasons")
        for rid, item_id, ext, aid, aext, keep, reasons in queryset.values_list(*fields).iterator(CHUNK_SIZE):
            yield {"response_id": rid, "item_id": item_id, "external_id": ext, "annotator_id": aid,
                   "annotator": aext, "keep": keep, "reasons": REASON_SEPARATOR.join(reasons)}

    return Dataset("decisions", lambda: list(DECISION_COLUMNS), rows)


#: dataset name -> (builder, what it holds, in words for the researcher)
DATASETS: dict[str, tuple[Callable[[Project], Dataset], str]] = {
    "raw": (raw, "every annotation, as collected"),
    "clean": (clean, "annotations kept by the latest quality run"),
    "items": (items, "items in the released format, with quality columns"),
    "annotators": (annotators, "annotators: accuracy, kept or dropped, and why"),
    "decisions": (decisions, "every annotation: kept or dropped, and why"),
}


def project_datasets(project: Project) -> dict[str, tuple[Callable[[Project], Dataset], str]]:
    """The standard datasets plus the further released formats of the project's kind."""
    found = dict(DATASETS)
    for name, spec in get_kind(project.kind).item_exports().items():
        found[name] = (lambda p, name=name, row=spec.row: _item_dataset(p, name, row), spec.description)
    return found
