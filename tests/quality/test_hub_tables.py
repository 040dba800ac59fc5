"""Typing a dataset's rows for Parquet (no database): one schema over every chunk and split,
text where values share no type, never Arrow's null type or an empty struct."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from quality.exports.hub import tables
from quality.exports.hub.tables import infer_schema, type_name, write_config


def keyed(rows):
    return list(enumerate(rows))


def test_types_unify_across_chunks(monkeypatch):
    monkeypatch.setattr(tables, "ROWS_PER_CHUNK", 2)
    rows = keyed(
        [
            {"n": 1, "spans": [{"start": 0, "end": 2}], "empty": None},
            {"n": 2, "spans": []},
            {"n": 2.5, "spans": [{"start": 1, "end": 3, "label": "PER"}], "empty": None},
        ]
    )
    schema, text = infer_schema(["n", "spans", "empty"], rows)
    assert text == set()
    assert schema.field("n").type == pa.float64()
    spans = schema.field("spans").type
    assert pa.types.is_list(spans) and {f.name for f in spans.value_type} == {"start", "end", "label"}
    assert schema.field("empty").type == pa.string()
    assert type_name(spans).startswith("list of {")


def test_values_of_no_common_type_are_written_as_text(tmp_path):
    rows = keyed([{"id": 7, "extra": {}}, {"id": "r-2", "extra": {}}, {"id": [1, 2]}])
    written = write_config(
        directory=tmp_path, name="items", columns=["id", "extra"], rows=lambda: iter(rows), split_of=lambda i: "train"
    )
    assert written.text_columns == {"id", "extra"}
    table = pq.read_table(tmp_path / "items" / "train.parquet")
    assert table.schema.field("id").type == pa.string()
    assert table.column("id").to_pylist() == ["7", "r-2", "[1, 2]"]
    assert table.column("extra").to_pylist() == ["{}", "{}", None]


def test_each_split_gets_its_file_with_the_one_schema(tmp_path):
    rows = keyed([{"x": 1}, {"x": None}, {"x": 3}])
    written = write_config(
        directory=tmp_path,
        name="items",
        columns=["x"],
        rows=lambda: iter(rows),
        split_of=lambda i: "test" if i == 1 else "train",
    )
    assert written.splits == {"train": ("items/train.parquet", 2), "test": ("items/test.parquet", 1)}
    for split in ("train", "test"):
        assert pq.read_schema(tmp_path / "items" / f"{split}.parquet").field("x").type == pa.int64()
