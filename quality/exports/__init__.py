"""Exports, composed from small parts (after doccano's data_export pipeline): a dataset
(`base.py`; each one registered in `datasets.py`) gives columns and rows, the one writer
(`writers.py`) turns them into encoded chunks, and `export_open` names the file. Small exports are served at once from these chunks;
large ones are written to a file by a background job (quality.services.exports). Both stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils import timezone
from django.utils.text import slugify

from annotation.models import Project

from .base import EXACT, Dataset, ExportUnavailable, Options
from .datasets import DATASETS, dataset_formats, dataset_unavailable, offered_datasets, project_datasets
from .writers import FORMATS, Format, encode

__all__ = [
    "DATASETS",
    "EXACT",
    "FORMATS",
    "Dataset",
    "Export",
    "ExportTooLarge",
    "ExportUnavailable",
    "Format",
    "Options",
    "UnknownExport",
    "export_dataset",
    "export_filename",
    "export_open",
    "dataset_formats",
    "dataset_unavailable",
    "offered_datasets",
    "project_datasets",
]


class UnknownExport(ValueError):
    """A dataset or format name that does not exist; the message lists the known ones."""


class ExportTooLarge(ExportUnavailable):
    """More records than a download at once may hold: a web worker streaming it would outlive
    its timeout and the file would arrive cut off. The message says to start an export job."""


@dataclass(frozen=True)
class Export:
    filename: str
    content_type: str
    chunks: Iterator[bytes]
    #: "exact" or "spreadsheet-safe": how CSV/TSV text cells were written
    cells: str


def export_filename(
    project: Project, dataset: str, fmt: Format, *, options: Options = EXACT, day: date | None = None
) -> str:
    """`<project-slug>-<dataset>-<YYYY-MM-DD>[-spreadsheet-safe].<ext>`, safe for a
    Content-Disposition header; the suffix says the cells were changed for spreadsheets."""
    slug = slugify(project.name) or f"project-{project.pk}"
    safe = "-spreadsheet-safe" if options.spreadsheet_safe and fmt.delimited else ""
    return f"{slug}-{dataset}-{(day or timezone.localdate()).isoformat()}{safe}.{fmt.extension}"


def cells_label(fmt: Format, options: Options) -> str:
    return "spreadsheet-safe" if options.spreadsheet_safe and fmt.delimited else "exact"


def export_dataset(
    *, project: Project, dataset: str, fmt: str | None, options: Options = EXACT
) -> tuple[Dataset, Format]:
    """The dataset and format named, checked up front (unknown names, a format the dataset is
    not written in, a missing quality run), so a caller can answer with an error before the first
    byte is written. `fmt` None: the dataset's own first format (`dataset_formats`)."""
    datasets = project_datasets(project)
    if dataset not in datasets:
        raise UnknownExport(f"unknown dataset {dataset!r}; known datasets for this project: {', '.join(datasets)}")
    if why := dataset_unavailable(project, dataset):
        raise ExportUnavailable(why[:1].upper() + why[1:] + ".")
    written_in = dataset_formats(dataset)
    fmt = fmt or written_in[0]
    if fmt not in FORMATS:
        raise UnknownExport(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")
    if fmt not in written_in:
        raise UnknownExport(f"the {dataset} dataset is written as {' or '.join(written_in)}, not {fmt}")
    build, _ = datasets[dataset]
    return build(project, options), FORMATS[fmt]


def export_open(
    *, project: Project, dataset: str, fmt: str | None, options: Options = EXACT, max_records: int | None = None
) -> Export:
    """Prepare a streamed export through the one writer (`writers.encode`). `max_records`: a
    download at once refuses a dataset of more source records (ExportTooLarge), counted first."""
    source, file_format = export_dataset(project=project, dataset=dataset, fmt=fmt, options=options)
    if max_records is not None and (records := source.total()) > max_records:
        raise ExportTooLarge(
            f"The {dataset} export holds {records:,} records, more than the {max_records:,} a download at "
            "once may hold (EXPORT_STREAM_MAX_RECORDS); start an export job: it writes the file in the "
            "background and lists it for download when it is ready."
        )
    return Export(
        filename=export_filename(project, dataset, file_format, options=options),
        content_type=file_format.content_type,
        chunks=dataset_chunks(source, file_format, options),
        cells=cells_label(file_format, options),
    )


def dataset_chunks(
    source: Dataset, fmt: Format, options: Options, rows: Iterable[Mapping[str, Any]] | None = None
) -> Iterator[bytes]:
    """The dataset's file, chunk by chunk; nothing is read before the first chunk is asked for.
    `rows`: the dataset's rows already opened (a job counts them as they pass)."""
    yield from encode(
        source.columns(), source.rows() if rows is None else rows, fmt, spreadsheet_safe=options.spreadsheet_safe
    )
