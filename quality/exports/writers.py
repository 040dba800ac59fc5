"""Writers: turn a dataset's rows into encoded chunks, a few hundred rows at a time.

They hold one chunk in memory, never the whole file, so a download streams at any size.
"""
from __future__ import annotations

import csv
import io
import json
from itertools import islice
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator

from .datasets import Dataset

ROWS_PER_CHUNK = 1000


def _batches(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    rows = iter(rows)
    while batch := list(islice(rows, size)):
        yield batch


def _row_values(columns: list[str], *, sparse: bool) -> Callable[[dict[str, Any]], Any]:
    """The row's cells in column order; itemgetter (C speed) unless a row may lack keys."""
    if sparse:
        return lambda row: [row.get(column) for column in columns]
    return itemgetter(*columns) if len(columns) > 1 else (lambda row: (row[columns[0]],))


def _delimited_chunks(dataset: Dataset, writer_options: dict[str, Any], rows_per_chunk: int) -> Iterator[bytes]:
    columns = dataset.columns()
    buffer = io.StringIO()
    writer = csv.writer(buffer, **writer_options)
    writer.writerow(columns)
    values = _row_values(columns, sparse=dataset.sparse)
    for batch in _batches(dataset.rows(), rows_per_chunk):
        writer.writerows(map(values, batch))
        yield buffer.getvalue().encode("utf-8")
        buffer.seek(0)
        buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode("utf-8")


def csv_chunks(dataset: Dataset, *, rows_per_chunk: int = ROWS_PER_CHUNK) -> Iterator[bytes]:
    """A header row, then one line per row (RFC 4180 quoting; None is an empty cell)."""
    return _delimited_chunks(dataset, {}, rows_per_chunk)


def tsv_chunks(dataset: Dataset, *, rows_per_chunk: int = ROWS_PER_CHUNK) -> Iterator[bytes]:
    """Tab-separated with LF line ends, as CoSimLex and the SemEval kits release their files;
    a cell is quoted only if it holds a tab, a newline or a quote (released text never does)."""
    return _delimited_chunks(dataset, {"delimiter": "\t", "lineterminator": "\n"}, rows_per_chunk)


def jsonl_chunks(dataset: Dataset, *, rows_per_chunk: int = ROWS_PER_CHUNK) -> Iterator[bytes]:
    """One JSON object per line, keys in the dataset's order, text kept as is (not \\u-escaped)."""
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    for batch in _batches(dataset.rows(), rows_per_chunk):
        yield ("\n".join(map(encode, batch)) + "\n").encode("utf-8")


#: format name -> (writer, content type, file extension)
FORMATS: dict[str, tuple[Callable[[Dataset], Iterator[bytes]], str, str]] = {
    "csv": (csv_chunks, "text/csv; charset=utf-8", "csv"),
    "tsv": (tsv_chunks, "text/tab-separated-values; charset=utf-8", "tsv"),
    "jsonl": (jsonl_chunks, "application/x-ndjson; charset=utf-8", "jsonl"),
}
