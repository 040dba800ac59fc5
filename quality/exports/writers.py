"""Writers: turn a dataset's rows into encoded chunks, a few hundred rows at a time.

They hold one chunk in memory, never the whole file, so a download streams at any size.
"""
from __future__ import annotations

import csv
import io
import json
from functools import lru_cache
from itertools import islice
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator, Sequence

from django.db import DEFAULT_DB_ALIAS

from . import forked
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
    lines = _DelimitedLines(writer_options)
    texts = _database_lines(dataset, lines)
    if texts is not None:  # lines written by the database, a chunk of UTF-8 at a time
        head = lines.render([columns]).encode("utf-8")
        for text in texts:
            yield head + text if head else text
            head = b""
        if head:
            yield head
        return
    forked_lines = _forked_lines(dataset, lines, rows_per_chunk)
    if forked_lines is not None:  # two processes, every other span of ids each
        yield lines.render([columns]).encode("utf-8")
        yield from forked_lines
        return
    if dataset.value_chunks is not None:  # cells already in column order, a chunk at a time
        batches: Iterable[Iterable[Sequence[Any]]] = dataset.value_chunks(rows_per_chunk)
    else:
        values = _row_values(columns, sparse=dataset.sparse)
        batches = (map(values, batch) for batch in _batches(dataset.rows(), rows_per_chunk))
    head = lines.render([columns])
    for batch in batches:
        yield (head + lines.render(batch)).encode("utf-8")
        head = ""
    if head:
        yield head.encode("utf-8")


def _forked_lines(dataset: Dataset, lines: _DelimitedLines, rows_per_chunk: int) -> Iterator[bytes] | None:
    """The dataset's lines written by this process and a forked one, where that applies."""
    if dataset.value_spans is None or dataset.id_bounds is None:
        return None
    if not forked.possible(DEFAULT_DB_ALIAS):  # asked first: the bounds cost two queries
        return None
    bounds = dataset.id_bounds()
    if not forked.worth(bounds):
        return None
    return forked.lines(DEFAULT_DB_ALIAS, bounds, dataset.value_spans, lines.render, rows_per_chunk)


def _database_lines(dataset: Dataset, lines: _DelimitedLines) -> Iterator[bytes] | None:
    """The dataset's lines as the database writes them, where it can (see Dataset.text_chunks)."""
    if dataset.text_chunks is None or lines.quoting is None:
        return None
    return dataset.text_chunks(lines.delimiter, lines.terminator, lines.quoting, lines.render)


class _DelimitedLines:
    """Rows to text exactly as `csv.writer(**options).writerows` writes them (QUOTE_MINIMAL,
    quotes doubled), about twice as fast for the cells exports hold: str, int, float, bool
    and None. A row with any other cell, or a single cell, is left to csv.writer itself.

    The characters that make csv quote a cell are asked of csv.writer itself, and the other
    rules (None and "" empty, str() of numbers and booleans, quotes doubled) are checked on
    samples: where the csv module of this Python differs, csv.writer writes everything.
    """

    def __init__(self, options: dict[str, Any]):
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, **options)
        self.delimiter = options.get("delimiter", ",")
        self.terminator = options.get("lineterminator", "\r\n")
        self.quoting = _quoting_characters(options)

    def render(self, rows: Iterable[Sequence[Any]]) -> str:
        if self.quoting is None:
            return self._by_csv(rows)
        special_1, special_2, special_3 = self.quoting
        delimiter, terminator = self.delimiter, self.terminator
        lines: list[str] = []
        add = lines.append
        for row in rows:
            cells: list[str] = []
            put = cells.append
            for value in row:
                kind = type(value)
                if kind is str:
                    if '"' in value:
                        value = '"' + value.replace('"', '""') + '"'
                    elif special_1 in value or special_2 in value or special_3 in value:
                        value = '"' + value + '"'
                elif value is None:
                    value = ""
                elif kind is int or kind is float or kind is bool:
                    value = str(value)
                else:
                    break
                put(value)
            else:
                if len(cells) > 1:
                    add(delimiter.join(cells))
                    add(terminator)
                    continue
            add(self._by_csv([row]))
        return "".join(lines)

    def _by_csv(self, rows: Iterable[Sequence[Any]]) -> str:
        self.buffer.seek(0)
        self.buffer.truncate()
        self.writer.writerows(rows)
        return self.buffer.getvalue()


@lru_cache(maxsize=None)
def _quoting_characters_cached(delimiter: str, terminator: str) -> tuple[str, str, str] | None:
    options = {"delimiter": delimiter, "lineterminator": terminator}

    def written(*cells: Any) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, **options).writerow(cells)
        return buffer.getvalue()

    # Which characters make csv quote a cell (besides the quote, which it also doubles)?
    candidates = [chr(code) for code in range(0x300)] + ["\u0085", "\u2028", "\u2029", "\ufeff"]
    special = [c for c in candidates if c != '"' and written(f"a{c}b", "x") != f"a{c}b{delimiter}x{terminator}"]
    if not 1 <= len(special) <= 3:
        return None
    for c in special:
        if written(f"a{c}b", "x") != f'"a{c}b"{delimiter}x{terminator}':
            return None
    samples = [
        ('a"b', '"a""b"'), ('"', '""""'), ("", ""), (None, ""), (0, "0"), (-12, "-12"), (10**20, str(10**20)),
        (1.5, "1.5"), (-0.0, "-0.0"), (1e20, "1e+20"), (float("nan"), "nan"), (float("inf"), "inf"),
        (True, "True"), (False, "False"), (" x ", " x "), ("ü中", "ü中"),
    ]
    for value, text in samples:
        if written(value, value) != f"{text}{delimiter}{text}{terminator}":
            return None
    return (special * 3)[0], (special * 3)[1], (special * 3)[2]


def _quoting_characters(options: dict[str, Any]) -> tuple[str, str, str] | None:
    """The three characters (repeated when fewer) that make csv.writer quote a cell, besides
    the quote; None where csv does not follow the rules `_DelimitedLines` copies."""
    if set(options) - {"delimiter", "lineterminator"}:
        return None
    return _quoting_characters_cached(options.get("delimiter", ","), options.get("lineterminator", "\r\n"))


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
