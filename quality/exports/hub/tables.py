"""A dataset's rows as typed Parquet files, one per split: lists stay lists, spans stay structs.

Two passes over the rows (they stream; memory holds one chunk): the first infers each column's
Arrow type chunk by chunk and unifies them (an int column with a float becomes a double, a struct
gains the fields any row has), the second writes every split with that one schema, so all splits
of a config share their features, as `datasets` requires. A column whose values share no type
(a number in one row, a text in another) is written as text, structured values as JSON; a
column that is always empty is text too (Arrow's null type says nothing to a reader).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROWS_PER_CHUNK = 1000
Rows = Callable[[], Iterator[tuple[int, dict[str, Any]]]]


@dataclass(frozen=True)
class WrittenConfig:
    """One config's files: split name -> (path relative to the folder, rows), its schema, and
    the columns written as text because their values share no type."""

    name: str
    splits: dict[str, tuple[str, int]]
    schema: pa.Schema
    text_columns: frozenset[str] = frozenset()

    @property
    def rows(self) -> int:
        return sum(n for _, n in self.splits.values())


def _chunks(rows: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[list[tuple[int, dict[str, Any]]]]:
    rows = iter(rows)
    while chunk := list(islice(rows, ROWS_PER_CHUNK)):
        yield chunk


def _inferred(values: list[Any]) -> pa.DataType | None:
    """The Arrow type of one chunk's values; None: they share none."""
    try:
        return pa.array(values).type
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return None


def _unified(a: pa.DataType | None, b: pa.DataType | None) -> pa.DataType | None:
    if a is None or b is None:
        return None
    if a == b:
        return a
    try:
        merged = pa.unify_schemas([pa.schema([("v", a)]), pa.schema([("v", b)])], promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    return merged.field("v").type


def _writable(kind: pa.DataType) -> pa.DataType | None:
    """The type a reader can use: null becomes text; a struct without fields (an empty object
    everywhere) has no Parquet form, so the column becomes text (None)."""
    if pa.types.is_null(kind):
        return pa.string()
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        inner = _writable(kind.value_type)
        return None if inner is None else pa.list_(inner)
    if pa.types.is_struct(kind):
        if kind.num_fields == 0:
            return None
        fields = []
        for field in (kind.field(i) for i in range(kind.num_fields)):
            inner = _writable(field.type)
            if inner is None:
                return None
            fields.append(pa.field(field.name, inner))
        return pa.struct(fields)
    return kind


def infer_schema(columns: list[str], rows: Iterable[tuple[int, dict[str, Any]]]) -> tuple[pa.Schema, set[str]]:
    """One Arrow schema for every row (first pass), and the columns written as text because
    their values share no type. `columns`: in order; a key a row lacks is null."""
    types: dict[str, pa.DataType | None] = {}
    for chunk in _chunks(rows):
        for column in columns:
            found = _inferred([row.get(column) for _, row in chunk])
            types[column] = _unified(types[column], found) if column in types else found
    fields, text = [], set()
    for column in columns:
        kind = types.get(column, pa.null())
        writable = None if kind is None else _writable(kind)
        if writable is None:
            text.add(column)
        fields.append(pa.field(column, pa.string() if writable is None else writable))
    return pa.schema(fields), text


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _table(chunk: list[dict[str, Any]], schema: pa.Schema, text: set[str]) -> pa.Table:
    arrays = []
    for field in schema:
        values = [row.get(field.name) for row in chunk]
        if field.name in text:
            values = [_as_text(v) for v in values]
        arrays.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def write_config(
    *,
    directory: Path,
    name: str,
    columns: list[str],
    rows: Rows,
    split_of: Callable[[int], str],
) -> WrittenConfig:
    """Write `<directory>/<name>/<split>.parquet` for every split a row goes to (second pass)."""
    schema, text = infer_schema(columns, rows())
    writers: dict[str, pq.ParquetWriter] = {}
    counts: dict[str, int] = {}
    try:
        for chunk in _chunks(rows()):
            by_split: dict[str, list[dict[str, Any]]] = {}
            for item_id, row in chunk:
                by_split.setdefault(split_of(item_id), []).append(row)
            for split, split_rows in by_split.items():
                if split not in writers:
                    (directory / name).mkdir(parents=True, exist_ok=True)
                    writers[split] = pq.ParquetWriter(directory / name / f"{split}.parquet", schema)
                writers[split].write_table(_table(split_rows, schema, text))
                counts[split] = counts.get(split, 0) + len(split_rows)
    finally:
        for writer in writers.values():
            writer.close()
    splits = {split: (f"{name}/{split}.parquet", counts[split]) for split in sorted(counts, key=_split_order)}
    return WrittenConfig(name=name, splits=splits, schema=schema, text_columns=frozenset(text))


def _split_order(split: str) -> tuple[int, str]:
    """train, validation, test first (the Hub's order), then the rest by name."""
    known = ("train", "validation", "test")
    return (known.index(split), "") if split in known else (len(known), split)


def type_name(kind: pa.DataType) -> str:
    """A column's type in a reader's words for the card: `list of {start: int64, ...}`."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return f"list of {type_name(kind.value_type)}"
    if pa.types.is_struct(kind):
        inner = ", ".join(f"{f.name}: {type_name(f.type)}" for f in (kind.field(i) for i in range(kind.num_fields)))
        return "{" + inner + "}"
    return str(kind)
