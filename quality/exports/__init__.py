"""Exports, composed from small parts (after doccano's data_export pipeline): a dataset
(`datasets.py`) gives columns and rows, a writer (`writers.py`) turns them into encoded
chunks, and `export_open` names the file. Everything streams."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Iterator

from django.utils import timezone
from django.utils.text import slugify

from annotation.models import Project

from .datasets import DATASETS, Dataset, ExportUnavailable, project_datasets
from .writers import FORMATS

__all__ = [
    "DATASETS", "FORMATS", "Dataset", "Export", "ExportUnavailable", "UnknownExport", "export_open", "project_datasets",
]


class UnknownExport(ValueError):
    """A dataset or format name that does not exist; the message lists the known ones."""


@dataclass(frozen=True)
class Export:
    filename: str
    content_type: str
    chunks: Iterator[bytes]


def export_filename(project: Project, dataset: str, extension: str, day: date | None = None) -> str:
    """`<project-slug>-<dataset>-<YYYY-MM-DD>.<ext>`, safe for a Content-Disposition header."""
    slug = slugify(project.name) or f"project-{project.pk}"
    return f"{slug}-{dataset}-{(day or timezone.localdate()).isoformat()}.{extension}"


def export_open(*, project: Project, dataset: str, fmt: str) -> Export:
    """Prepare a streamed export. Checks everything up front (unknown names, a missing quality
    run) so a caller can answer with an error before the first byte is sent."""
    datasets = project_datasets(project)
    if dataset not in datasets:
        raise UnknownExport(f"unknown dataset {dataset!r}; known datasets for this project: {', '.join(datasets)}")
    if fmt not in FORMATS:
        raise UnknownExport(f"unknown format {fmt!r}; known formats: {', '.join(FORMATS)}")
    build, _ = datasets[dataset]
    writer, content_type, extension = FORMATS[fmt]
    return Export(
        filename=export_filename(project, dataset, extension),
        content_type=content_type,
        chunks=writer(build(project)),
    )
