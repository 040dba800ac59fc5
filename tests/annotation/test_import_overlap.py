"""Parsing overlapped with writing (SQLite: a parser thread; PostgreSQL: binary COPY pulling rows).

Whatever part of the file was already written, a failure on either side imports nothing, the
error is the original one (line and field), and no thread is left running.
"""

import json
import sqlite3
import struct
import threading
from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection

from annotation.kinds import ImportProblem, get_kind
from annotation.models import Item
from annotation.services import imports, item_inserts
from annotation.services.imports import items_import
from tests.factories import RECAM_PAYLOAD, ProjectFactory


def recam_lines(count: int, *, start: int = 0) -> list[str]:
    return [json.dumps({**RECAM_PAYLOAD, "id": f"item-{n}"}, ensure_ascii=False) for n in range(start, start + count)]


def as_file(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def read_ahead_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "import-read-ahead"]


class SentRows:
    """Counts the rows that reached the database before a failure (INSERTs or COPY chunks)."""

    def __init__(self, monkeypatch):
        self.statements = 0
        read = item_inserts._CopyStream.read

        def counting_read(stream, size=-1):
            chunk = read(stream, size)
            self.statements += bool(chunk)
            return chunk

        monkeypatch.setattr(item_inserts._CopyStream, "read", counting_read)

    def __call__(self, execute, sql, params, many, context):
        if sql.startswith("INSERT INTO"):
            self.statements += 1
        return execute(sql, params, many, context)


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 5 rows and little read-ahead, so a 60-line file is written in many statements."""
    monkeypatch.setattr(item_inserts, "SQLITE_BATCH_ROWS", 5)
    monkeypatch.setattr(item_inserts, "SQLITE_READ_AHEAD", 1)
    monkeypatch.setattr(item_inserts, "COPY_CHUNK_BYTES", 1)


def import_deep_bad_line(monkeypatch) -> tuple[ImportProblem, int]:
    project = ProjectFactory()
    bad = json.dumps({**RECAM_PAYLOAD, "id": "bad", "question": "no blank"})
    data = as_file(recam_lines(40) + [bad] + recam_lines(19, start=40))
    sent = SentRows(monkeypatch)
    with connection.execute_wrapper(sent), pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=data)
    return caught.value, sent.statements


@pytest.mark.django_db
def test_a_bad_line_deep_in_the_file_imports_nothing(small_batches, monkeypatch):
    problem, statements = import_deep_bad_line(monkeypatch)
    assert (problem.line, problem.field) == (41, "question")
    assert statements >= 4  # rows before the bad line had been written
    assert not Item.objects.exists()
    assert not read_ahead_threads()
    assert items_import(project=ProjectFactory(), data=as_file(recam_lines(12))).created == 12


@pytest.mark.django_db(transaction=True)
def test_a_bad_line_rolls_the_real_transaction_back(small_batches, monkeypatch):
    # outside a test transaction: items_import's own BEGIN ... ROLLBACK, not a savepoint
    assert not connection.in_atomic_block
    problem, statements = import_deep_bad_line(monkeypatch)
    assert (problem.line, problem.field) == (41, "question") and statements >= 4
    assert not connection.in_atomic_block
    assert not Item.objects.exists()
    assert not read_ahead_threads()
    project = ProjectFactory()
    report = items_import(project=project, data=as_file(recam_lines(23) + recam_lines(4)))
    assert (report.created, report.duplicates) == (23, 4)
    assert Item.objects.filter(project=project).count() == 23


@pytest.mark.django_db
def test_the_parsers_own_exception_reaches_the_caller(small_batches, monkeypatch):
    kind = get_kind("recam")
    failure = RuntimeError("the parser broke")

    def breaking_parse(text):
        yield from type(kind).iter_parse(kind, text)  # items pass through, then it breaks
        raise failure

    monkeypatch.setattr(kind, "iter_parse", breaking_parse)
    with pytest.raises(RuntimeError) as caught:
        items_import(project=ProjectFactory(), data=as_file(recam_lines(30)))
    assert caught.value is failure
    assert not Item.objects.exists()
    assert not read_ahead_threads()


@pytest.mark.django_db
def test_a_failed_write_stops_the_parser_thread(small_batches, monkeypatch):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's writer; PostgreSQL's COPY runs in the caller's thread")
    parsed = []
    kind = get_kind("recam")

    def counting_parse(text):
        for item in type(kind).iter_parse(kind, text):
            parsed.append(item.line)
            yield item

    monkeypatch.setattr(kind, "iter_parse", counting_parse)
    failure = OSError("disk full")
    statements = []

    def failing_second_insert(execute, sql, params, many, context):
        if sql.startswith("INSERT INTO"):
            statements.append(sql)
            if len(statements) == 2:
                raise failure
        return execute(sql, params, many, context)

    project = ProjectFactory()  # made before the wrapper counts INSERTs: only the import's own count
    with connection.execute_wrapper(failing_second_insert), pytest.raises(OSError) as caught:
        items_import(project=project, data=as_file(recam_lines(500)))
    assert caught.value is failure
    assert not read_ahead_threads()
    assert len(parsed) < 500  # the parser was stopped, not left to read the whole file
    assert not Item.objects.exists()


@pytest.mark.django_db
def test_batches_of_any_size_store_every_row_once(monkeypatch):
    monkeypatch.setattr(item_inserts, "SQLITE_BATCH_ROWS", 3)
    lines = recam_lines(7) + recam_lines(2) + recam_lines(3, start=7)  # duplicates across batches
    project = ProjectFactory()
    report = items_import(project=project, data=as_file(lines), filename="b.jsonl")
    assert (report.created, report.duplicates, report.total) == (10, 2, 12)
    stored = list(Item.objects.filter(project=project).order_by("id").values_list("external_id", "source"))
    assert stored == [(f"item-{n}", f"b.jsonl:{n + 1 if n < 7 else n + 3}") for n in range(10)]


@pytest.mark.django_db
def test_sqlite_batches_fit_the_librarys_limit_on_values():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    connection.ensure_connection()
    limit = sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER
    project = ProjectFactory()
    old = connection.connection.setlimit(limit, 20)  # 3 rows of 6 values per statement
    try:
        statements = []

        def count(execute, sql, params, many, context):
            statements.extend([len(params)] if sql.startswith("INSERT INTO") else [])
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            assert items_import(project=project, data=as_file(recam_lines(7))).created == 7
    finally:
        connection.connection.setlimit(limit, old)
    assert statements == [18, 18, 6]


# --- the read-ahead helper ------------------------------------------------------------------
def test_read_ahead_yields_every_value_in_order():
    with item_inserts._read_ahead(iter(range(1000)), 3) as values:
        assert list(values) == list(range(1000))
    assert not read_ahead_threads()


def test_read_ahead_raises_the_producers_exception_after_its_values():
    def source():
        yield 1
        yield 2
        raise ImportProblem("bad", line=3, field="label")

    got = []
    with pytest.raises(ImportProblem, match="line 3, field 'label'"):
        with item_inserts._read_ahead(source(), 1) as values:
            got.extend(values)
    assert got == [1, 2]
    assert not read_ahead_threads()


def test_leaving_early_stops_an_endless_producer():
    def endless():
        n = 0
        while True:
            n += 1
            yield n

    with pytest.raises(ValueError):
        with item_inserts._read_ahead(endless(), 2) as values:
            for value in values:
                if value == 10:
                    raise ValueError("the consumer failed")
    assert not read_ahead_threads()


# --- binary COPY ----------------------------------------------------------------------------
def test_copy_timestamps_are_exact_microseconds():
    utc = UTC
    assert item_inserts._copy_timestamp(datetime(2000, 1, 1, tzinfo=utc)) == struct.pack("!iq", 8, 0)
    assert item_inserts._copy_timestamp(datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=utc)) == struct.pack(
        "!iq", 8, -1
    )
    moment = datetime(2026, 11, 21, 7, 35, 13, 123457, tzinfo=timezone(timedelta(hours=2)))
    micros = (moment - datetime(2000, 1, 1, tzinfo=utc)) // timedelta(microseconds=1)
    assert item_inserts._copy_timestamp(moment) == struct.pack("!iq", 8, micros)


@pytest.mark.django_db
def test_postgresql_stores_the_import_time_exactly(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    moment = datetime(2026, 11, 21, 7, 35, 13, 123457, tzinfo=UTC)
    monkeypatch.setattr(imports.timezone, "now", lambda: moment)
    project = ProjectFactory()
    items_import(project=project, data=as_file(recam_lines(3)))
    assert set(Item.objects.filter(project=project).values_list("created_at", flat=True)) == {moment}


def test_copy_rows_start_with_the_project_id_as_its_column_stores_it():
    project = ProjectFactory.build(pk=2**40 + 7)
    assert item_inserts._copy_row_head(connection, project) == struct.pack("!hiq", 6, 8, 2**40 + 7)


def test_read_ahead_runs_in_the_callers_language():
    from django.utils import translation

    with (
        translation.override("hr"),
        item_inserts._read_ahead((translation.get_language() for _ in range(2)), 1) as values,
    ):
        assert list(values) == ["hr", "hr"]
