"""The one writer: a dataset's rows to CSV, TSV, JSONL lines or one JSON array, a chunk of rows at a time.

Every export goes through `encode`: the admin's and the API's downloads, the background jobs'
files and the `export` command. It holds one chunk in memory, never the whole file.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

ROWS_PER_CHUNK = 1000
#: what a spreadsheet may read as the start of a formula (OWASP's CSV injection list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Format:
    """A file format: its name, HTTP content type, file extension and csv dialect (None: JSON
    text, one object per line, or with `array` one JSON array of the rows)."""

    name: str
    content_type: str
    extension: str
    dialect: type[csv.Dialect] | None = field(default=None)
    array: bool = False

    @property
    def delimited(self) -> bool:
        return self.dialect is not None


class TabSeparated(csv.excel):
    """Tab-separated with LF line ends, as the shared tasks' kits release their files."""

    delimiter = "\t"
    lineterminator = "\n"


FORMATS: dict[str, Format] = {
    "csv": Format("csv", "text/csv; charset=utf-8", "csv", csv.excel),
    "tsv": Format("tsv", "text/tab-separated-values; charset=utf-8", "tsv", TabSeparated),
    "jsonl": Format("jsonl", "application/x-ndjson; charset=utf-8", "jsonl"),
    "json": Format("json", "application/json; charset=utf-8", "json", array=True),
}


def spreadsheet_safe_cell(value: Any) -> Any:
    """A text cell that starts like a formula gets a leading `'`, so a spreadsheet shows it as
    text instead of running it (issue 20). Numbers are left as they are: -3 is a number, not a
    formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def plain_cell(value: Any) -> Any:
    """A CSV/TSV cell as a person reads it: a list of plain values as its items joined by ';';
    an object, or a list that holds lists or objects (e.g. sentences per answer option), as JSON,
    the only structured value a cell keeps; anything else as it is. JSONL keeps values as JSON."""
    if isinstance(value, list | tuple):
        if any(isinstance(v, list | tuple | dict) for v in value):
            return json.dumps(value, ensure_ascii=False)
        return ";".join("" if v is None else str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def _chunks(rows: Iterable[Mapping[str, Any]], size: int) -> Iterator[list[Mapping[str, Any]]]:
    rows = iter(rows)
    while chunk := list(islice(rows, size)):
        yield chunk


def _delimited(
    columns: list[str],
    rows: Iterable[Mapping[str, Any]],
    dialect: type[csv.Dialect],
    *,
    spreadsheet_safe: bool,
    rows_per_chunk: int,
) -> Iterator[bytes]:
    """A header row, then one line per row (csv's minimal quoting; None is an empty cell)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, dialect=dialect)

    def taken() -> bytes:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text.encode("utf-8")

    writer.writerow(columns)
    header_sent = False
    for chunk in _chunks(rows, rows_per_chunk):
        for row in chunk:
            cells = [plain_cell(row.get(column)) for column in columns]
            writer.writerow(map(spreadsheet_safe_cell, cells) if spreadsheet_safe else cells)
        header_sent = True
        yield taken()
    if not header_sent:
        yield taken()


def _jsonl(rows: Iterable[Mapping[str, Any]], *, rows_per_chunk: int) -> Iterator[bytes]:
    """One JSON object per line, keys in the row's order, text as itself (not \\u-escaped)."""
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    for chunk in _chunks(rows, rows_per_chunk):
        yield ("\n".join(map(encode, chunk)) + "\n").encode("utf-8")


def _json_array(rows: Iterable[Mapping[str, Any]], *, rows_per_chunk: int) -> Iterator[bytes]:
    """One JSON array, a row per line, streamed: `[` first, `]` last (an empty array without rows)."""
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    opening = "[\n"
    for chunk in _chunks(rows, rows_per_chunk):
        yield (opening + ",\n".join(map(encode, chunk))).encode("utf-8")
        opening = ",\n"
    yield ("[]\n" if opening == "[\n" else "\n]\n").encode("utf-8")


def encode(
    columns: list[str],
    rows: Iterable[Mapping[str, Any]],
    fmt: Format,
    *,
    spreadsheet_safe: bool = False,
    rows_per_chunk: int = ROWS_PER_CHUNK,
) -> Iterator[bytes]:
    """The file's bytes, a chunk of `rows_per_chunk` rows at a time. CSV/TSV write `columns` in
    order (a key a row lacks is an empty cell); JSONL writes each row as it is, and ignores
    `spreadsheet_safe` (it is no spreadsheet format); JSON writes the rows as one array."""
    if fmt.array:
        return _json_array(rows, rows_per_chunk=rows_per_chunk)
    if fmt.dialect is None:
        return _jsonl(rows, rows_per_chunk=rows_per_chunk)
    return _delimited(columns, rows, fmt.dialect, spreadsheet_safe=spreadsheet_safe, rows_per_chunk=rows_per_chunk)
