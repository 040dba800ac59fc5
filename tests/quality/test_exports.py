"""Exports: content round-trips through csv/json, awkward text survives, clean = kept, items keep
the released key order, and the query count does not grow with the number of rows."""

from __future__ import annotations

import csv
import io
import json
import types

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.kinds import get_kind
from annotation.models import Item
from annotation.selectors.responses import annotation_columns, annotation_rows
from quality.agreement import aggregate_columns
from quality.exports import ExportUnavailable, UnknownExport, export_open
from quality.models import ItemResult
from quality.selectors import kept_response_ids
from quality.services.runs import quality_run_create
from tests.quality.conftest import build_annotated_project
from tests.quality.helpers import bulk_responses, tricky_jsonl

pytestmark = pytest.mark.django_db

RELEASED = ["article", "question", "option_0", "option_1", "option_2", "option_3", "option_4", "label"]
#: the kind's diagnostics, then the aggregated labels of its nominal/ordinal fields with their confidence
DIAGNOSTICS = list(get_kind("recam").item_diagnostic_columns()) + aggregate_columns(get_kind("recam").label_fields())


def text(project, dataset: str, fmt: str) -> str:
    return b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks).decode("utf-8")


def parse_csv(body: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(body, newline=""))
    return list(reader.fieldnames), list(reader)


def parse_jsonl(body: str) -> list[dict]:
    assert body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def as_csv_cell(value) -> str:
    return "" if value is None else str(value)


def test_raw_csv_round_trips(annotated):
    project = annotated.project
    header, rows = parse_csv(text(project, "raw", "csv"))
    assert header == annotation_columns(project, keep_unconfirmed=True)
    expected = list(annotation_rows(project, keep_unconfirmed=True))
    assert len(rows) == len(expected) == 60
    for got, want in zip(rows, expected):
        assert got == {k: as_csv_cell(v) for k, v in want.items()}


def test_raw_jsonl_round_trips_in_column_order(annotated):
    project = annotated.project
    rows = parse_jsonl(text(project, "raw", "jsonl"))
    expected = list(annotation_rows(project, keep_unconfirmed=True))
    assert rows == json.loads(json.dumps(expected))
    assert all(list(row) == annotation_columns(project, keep_unconfirmed=True) for row in rows)


@pytest.fixture
def tricky(db):
    built = build_annotated_project(tricky_jsonl(), name="Quotes, commas & ünïcödé")
    quality_run_create(project=built.project)
    return built.project


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_awkward_text_survives(tricky, fmt):
    payloads = {item.external_id: item.payload for item in Item.objects.filter(project=tricky)}
    body = text(tricky, "items", fmt)
    rows = parse_csv(body)[1] if fmt == "csv" else parse_jsonl(body)
    assert len(rows) == len(payloads) == 5
    for row, payload in zip(rows, payloads.values()):
        for key in RELEASED[:-1]:
            assert row[key] == payload[key]
    assert "中文" in body and "\\u" not in body  # non-ASCII written as itself
    raw = text(tricky, "raw", fmt)
    spans = {r["support_span"] for r in (parse_csv(raw)[1] if fmt == "csv" else parse_jsonl(raw))}
    article = next(iter(payloads.values()))["article"]
    assert article[:30] in spans and '"' in article[:30] and "\n" in article[:30] and "," in article[:30]


def test_clean_holds_exactly_the_kept_responses(annotated):
    project = annotated.project
    strict = quality_run_create(project=project)
    kept = set(kept_response_ids(strict).values_list("response_id", flat=True))
    rows = parse_jsonl(text(project, "clean", "jsonl"))
    assert {r["response_id"] for r in rows} == kept and len(rows) == len(kept) == 39
    header, csv_rows = parse_csv(text(project, "clean", "csv"))
    assert header == annotation_columns(project) and "reasons" not in header
    assert {int(r["response_id"]) for r in csv_rows} == kept
    loose = quality_run_create(project=project, overrides={"require_spans": False, "easy_must_be_correct": False})
    rows = parse_jsonl(text(project, "clean", "jsonl"))
    assert {r["response_id"] for r in rows} == set(kept_response_ids(loose).values_list("response_id", flat=True))
    assert len(rows) == 49


def test_clean_needs_a_run(annotated):
    with pytest.raises(ExportUnavailable, match="needs a finished quality run"):
        export_open(project=annotated.project, dataset="clean", fmt="csv")


def test_unknown_names_are_refused(annotated):
    with pytest.raises(UnknownExport, match="known datasets for this project: raw, clean, items"):
        export_open(project=annotated.project, dataset="everything", fmt="csv")
    with pytest.raises(UnknownExport, match="known formats: csv, tsv, jsonl"):
        export_open(project=annotated.project, dataset="raw", fmt="xlsx")


def test_items_released_keys_in_order_with_diagnostics(annotated):
    project = annotated.project
    run = quality_run_create(project=project)
    rows = parse_jsonl(text(project, "items", "jsonl"))
    assert len(rows) == 20
    assert all(list(row) == RELEASED + DIAGNOSTICS for row in rows)
    results = {
        r.item.payload["question"]: r.diagnostics for r in ItemResult.objects.filter(run=run).select_related("item")
    }
    for row in rows:
        assert {k: row[k] for k in DIAGNOSTICS} == results[row["question"]]
    header, csv_rows = parse_csv(text(project, "items", "csv"))
    assert header == RELEASED + DIAGNOSTICS
    assert [r["question"] for r in csv_rows] == [r["question"] for r in rows]


def test_items_without_a_run_have_empty_quality_columns(annotated):
    rows = parse_jsonl(text(annotated.project, "items", "jsonl"))
    assert all(row[k] is None for row in rows for k in DIAGNOSTICS)
    _, csv_rows = parse_csv(text(annotated.project, "items", "csv"))
    assert all(row[k] == "" for row in csv_rows for k in DIAGNOSTICS)


def test_items_mixed_labeled_and_test_files(annotated, recam_test_bytes):
    from annotation.services.imports import items_import

    items_import(project=annotated.project, data=recam_test_bytes, filename="test.jsonl")
    header, rows = parse_csv(text(annotated.project, "items", "csv"))
    assert header == ["id"] + RELEASED + DIAGNOSTICS  # id first, label after the options
    jsonl = parse_jsonl(text(annotated.project, "items", "jsonl"))
    assert list(jsonl[-1]) == ["id"] + RELEASED[:-1] + DIAGNOSTICS  # test items: no label key
    assert list(jsonl[0]) == RELEASED + DIAGNOSTICS


def test_decision_and_annotator_datasets_explain_removals(annotated):
    quality_run_create(project=annotated.project)
    decisions = parse_jsonl(text(annotated.project, "decisions", "jsonl"))
    assert len(decisions) == 60 and sum(not d["keep"] for d in decisions) == 21
    assert {d["reasons"] for d in decisions if d["keep"]} == {""}
    assert all(d["reasons"] for d in decisions if not d["keep"])
    header, annotators = parse_csv(text(annotated.project, "annotators", "csv"))
    assert header == [
        "annotator_id",
        "annotator",
        "channel",
        "keep",
        "reasons",
        "n_responses",
        "n_gold",
        "accuracy",
        "n_items_vs_majority",
        "agreement_vs_majority",
        "kappa_vs_majority",
    ]
    dropped = [a for a in annotators if a["keep"] == "False"]
    assert len(dropped) == 1 and dropped[0]["reasons"].startswith("accuracy 0.0% on 10 labeled items")


def test_chunks_are_a_generator_and_file_name(annotated):
    export = export_open(project=annotated.project, dataset="raw", fmt="jsonl")
    assert isinstance(export.chunks, types.GeneratorType)
    assert export.content_type.startswith("application/x-ndjson")
    assert export.filename.startswith("recam-pilot-raw-") and export.filename.endswith(".jsonl")


def test_queries_do_not_grow_with_rows(subtests):
    """Every dataset in every format, read from the same two projects: building 4,500 rows and
    their quality run is this test's cost, so it is paid once, not once per export."""
    projects = {n: bulk_responses(n) for n in (10, 4500)}  # 4,500 rows span several fetch chunks
    for project in projects.values():
        quality_run_create(project=project)
    for dataset in ("raw", "clean", "items"):
        for fmt in ("csv", "jsonl"):
            with subtests.test(dataset=dataset, fmt=fmt):
                counts = []
                for n, project in projects.items():
                    with CaptureQueriesContext(connection) as queries:
                        export = export_open(project=project, dataset=dataset, fmt=fmt)
                        rows = sum(chunk.count(b"\n") for chunk in export.chunks)
                    assert rows >= (n // 3 if dataset == "items" else n)
                    counts.append(len(queries))
                assert counts[0] == counts[1] <= 3, counts
