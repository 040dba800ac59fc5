"""The raw/clean CSV and TSV lines PostgreSQL writes (`annotation.export_sql`) are the bytes the
Python path writes, cell for cell, for every kind of value a cell can hold.

The reference is the same export with the SQL path switched off (the Python path, itself
pinned to the old reader by test_export_fast_path). The tricky project below holds what the SQL
must write exactly or leave to Python: quotes, commas, CR/LF, tabs, empty strings against
missing answers and nulls, unicode, integers (small, large, negative), floats (2.0, 2.50,
1e-05), booleans, objects and lists as values, pages that are not objects, labels of every
type, and seconds of every shape (integers, up to and beyond 3 decimals, rounding ties,
negative, strings, nulls, many pages, large sums). On SQLite the SQL path does not apply and
the same tests check that nothing changed there.
"""
from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone as dt_timezone
from typing import Any

import pytest
from django.db import connection

from annotation import export_sql, selectors
from annotation.kinds import get_kind
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit, UnitItem
from quality.exports import export_open
from quality.services.runs import quality_run_create
from tests.quality.test_export_fast_path import (
    assert_same_bytes,
    build_cosimlex,
    build_recam,
    legacy_export,
)

BASE = 7_450_000
UTC = dt_timezone.utc
T0 = datetime(2026, 11, 21, 4, 25, 0, 0, tzinfo=UTC)
DELIMITED = ("csv", "tsv")
POSTGRES = connection.vendor == "postgresql"

TEXTS = ['', ' ', 'a,b', 'say "hi"', '"', 'line\nbreak', 'cr\rhere', 'crlf\r\nx', 'tab\there', 'naïve 中文 😀',
         "it's", '\\back\\slash', 'comma, "and" quote\n', 'true', '12', '1.50', 'null', '\u2028', '\x01ctl']
NUMBERS = [0, 1, -3, 12345678901234, 123456789012345678, 10**20, 2.0, 2.5, 1e-05, 1e16, -0.0, 0.1]
ODD = [True, False, None, {"a": 1}, [1, "x"], [], {}]


def _value(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.55:
        return rng.choice(TEXTS)
    if pick < 0.8:
        return rng.choice(NUMBERS[:3]) if rng.random() < 0.6 else rng.choice(NUMBERS)
    if pick < 0.9:
        return "__missing__"
    return rng.choice(ODD)


def _page(rng: random.Random, keys: list[str]) -> Any:
    pick = rng.random()
    if pick < 0.85:
        page = {}
        for key in keys:
            value = _value(rng)
            if value != "__missing__":
                page[key] = value
        return page
    return rng.choice([None, "__missing__", {}, [], 0, "", [{"choice": 1}], "x", 1, True, False])


PAGE_KEYS = {
    "pre": ["choice"], "post": ["choice"], "second": ["choice"], "support_span": ["text", "start", "end"],
    "relation": ["relation"], "summary_span": ["text", "start", "end"], "difficulty": ["difficulty"],
}


def _answers(rng: random.Random) -> Any:
    if rng.random() < 0.03:
        return rng.choice([[], ["pre"], "text", 3])
    answers: dict[str, Any] = {}
    for page, keys in PAGE_KEYS.items():
        value = _page(rng, keys)
        if value != "__missing__":
            answers[page] = value
    return answers


SECONDS = [0, 1, 7, 2.5, 0.1, 0.2, 0.3, 12.25, 1.333, 9.99, 0.0005, 0.0015, 2.675, 1.0005, 3.14159, 1e-05,
           0.1 + 0.2, 999999.999, 500000, 250000.5, None, -1.5, -0.0, "3", True, [1], 1e20, 2**60]


def _timings(rng: random.Random) -> Any:
    if rng.random() < 0.03:
        return rng.choice([[], {"pre": [{"seconds": 1}]}, {"pre": 3}])
    pages = list(PAGE_KEYS) + [f"extra_{n}" for n in range(rng.choice([0, 0, 0, 12]))]
    timings: dict[str, Any] = {}
    safe = rng.random() < 0.6
    for page in pages[: rng.randrange(0, len(pages) + 1)]:
        entry: dict[str, Any] = {"shown_at": T0.isoformat()}
        if rng.random() < 0.9:
            entry["seconds"] = rng.choice(SECONDS[:10] if safe else SECONDS)
        timings[page] = entry
    return timings


def build_tricky(n: int = 400, seed: int = 5) -> Project:
    """A ReCAM project whose responses hold every kind of value (see the module docstring)."""
    rng = random.Random(seed)
    project = Project.objects.create(pk=BASE + 1, name="SQL path, tricky", kind="recam")
    labels = [0, 4, None, "2", True, 2.0, 10**20, "__missing__"]
    items = []
    for k in range(16):
        payload: dict[str, Any] = {"article": "a", "question": "q @placeholder", "option_0": "x"}
        label = labels[k % len(labels)]
        if label != "__missing__":
            payload["label"] = label
        external = ["plain", 'quo"te', "com,ma", "new\nline", "tab\tx", "ü 中", "", "cr\r"][k % 8] + str(k)
        items.append(Item.objects.create(pk=BASE + 100 + k, project=project, external_id=external, payload=payload))
    batch = Batch.objects.create(pk=BASE + 1, project=project, name="b", items_per_unit=4, assignments_per_unit=5)
    units = [Unit.objects.create(pk=BASE + 10 + u, batch=batch, position=u) for u in range(4)]
    for k, item in enumerate(items):
        UnitItem.objects.create(unit=units[k // 4], item=item, position=k % 4)
    people = [("plain", "invite"), ('q"uote, comma', "mturk"), ("line\nbreak", "prolific"), ("tab\tü", "invite"),
              ("", "invite")]
    annotators = [
        Annotator.objects.create(pk=BASE + 20 + k, project=project, external_id=f"{people[k % 5][0]}{k}",
                                 channel=people[k % 5][1], batch=batch)
        for k in range(25)
    ]
    statuses = ["submitted", "active", "released", "approved"]
    assignments = [
        Assignment.objects.create(pk=BASE + 300 + 4 * a + u, unit=units[u], annotator=annotator,
                                  status=statuses[(a + u) % 4])
        for a, annotator in enumerate(annotators) for u in range(4)
    ]
    responses = []
    for r in range(n):
        assignment = assignments[(r // 4) % len(assignments)]
        position = r % 4
        item = items[(assignment.unit_id - BASE - 10) * 4 + position]
        done = None if rng.random() < 0.2 else T0 + timedelta(seconds=r, microseconds=rng.choice([0, 1, 500000, r]))
        responses.append(Response(pk=BASE + 1000 + r, assignment=assignment, item=item, position=position,
                                  answers=_answers(rng), timings=_timings(rng), completed_at=done))
    _bulk_create_unique(responses)
    return project


def _bulk_create_unique(responses: list[Response]) -> None:
    """One response per (assignment, item): the later ones with the same pair go to other items."""
    seen: set[tuple[int, int]] = set()
    keep = []
    for response in responses:
        key = (response.assignment_id, response.item_id)
        if key not in seen:
            seen.add(key)
            keep.append(response)
    Response.objects.bulk_create(keep)


def export_bytes(project: Project, dataset: str, fmt: str) -> bytes:
    return b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)


def python_bytes(monkeypatch: pytest.MonkeyPatch, project: Project, dataset: str, fmt: str) -> bytes:
    with monkeypatch.context() as patch:
        patch.setattr(export_sql, "text_chunks", lambda *args, **kwargs: None)
        return export_bytes(project, dataset, fmt)


def outcome(function: Any) -> tuple[str, Any]:
    """What a call gives, or the type of what it raised (a bad row raises on both paths)."""
    try:
        return "ok", function()
    except Exception as exc:  # noqa: BLE001
        return "raised", type(exc).__name__


class Counting:
    """How many chunks the Python path had to write for the SQL path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        plain = selectors._value_rows

        def counted(*args: Any) -> Any:
            self.calls += 1
            return plain(*args)

        monkeypatch.setattr(selectors, "_value_rows", counted)


# --- the tests ----------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("fmt", DELIMITED)
@pytest.mark.parametrize("size", [7, 50, 100_000], ids=["tiny-chunks", "small-chunks", "one-chunk"])
def test_tricky_cells_give_the_python_bytes(monkeypatch, fmt, size):
    monkeypatch.setattr(export_sql, "TARGET_ROWS", size)
    monkeypatch.setattr(export_sql, "MAX_ROWS", 4 * size)
    project = build_tricky()
    # answers that are not objects, and pages that are truthy non-objects, make annotation_row
    # raise: the tricky project does, on both paths alike
    got = outcome(lambda: export_bytes(project, "raw", fmt))
    want = outcome(lambda: python_bytes(monkeypatch, project, "raw", fmt))
    assert got[0] == want[0]
    if got[0] == "raised":
        assert got == want
    else:
        assert_same_bytes(got[1], want[1])


def _clean_answers() -> None:
    """Make every answer something annotation_row reads without raising (objects or null pages)."""
    for response in Response.objects.filter(pk__gte=BASE + 1000, pk__lt=BASE + 2000):
        answers = response.answers if isinstance(response.answers, dict) else {}
        fixed = {page: value for page, value in answers.items() if isinstance(value, dict) or value is None}
        timings = response.timings
        if not isinstance(timings, dict) or any(not isinstance(t, dict) for t in timings.values()):
            timings = {}
        seconds = [t.get("seconds") for t in timings.values()]
        if any(s is not None and (isinstance(s, (str, bool, list))) for s in seconds):
            timings = {page: {"seconds": 1.5} for page in timings}
        if fixed != response.answers or timings != response.timings:
            Response.objects.filter(pk=response.pk).update(answers=fixed, timings=timings)


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", DELIMITED)
@pytest.mark.parametrize("size", [7, 100_000], ids=["tiny-chunks", "one-chunk"])
def test_every_readable_value_gives_the_python_bytes(monkeypatch, fmt, size):
    """The same project with the raising rows mended: every line compared, raw and clean."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", size)
    monkeypatch.setattr(export_sql, "MAX_ROWS", 4 * size)
    project = build_tricky()
    _clean_answers()
    counting = Counting(monkeypatch)
    got = export_bytes(project, "raw", fmt)
    fallbacks = counting.calls
    # (not compared with the old reader: orjson reads 10**20 as a float, a documented limit)
    assert_same_bytes(got, python_bytes(monkeypatch, project, "raw", fmt))
    if POSTGRES:  # the odd values made the SQL leave chunks to Python
        assert fallbacks > 0
    assert got.count(b"\n") > 300


def _plain_project() -> Project:
    """The tricky project with ordinary answers and integer (or no) labels."""
    project = build_tricky(n=300, seed=9)
    _clean_answers()
    for item in Item.objects.filter(project=project):
        label = item.payload.get("label")
        if label is not None and type(label) is not int or isinstance(label, int) and label > 4:
            Item.objects.filter(pk=item.pk).update(payload={**item.payload, "label": 3})
    Response.objects.filter(pk__gte=BASE + 1000).update(
        answers={"pre": {"choice": 1}, "post": {"choice": 2}, "second": {"choice": None},
                 "support_span": {"text": 'a "b", c\r\n', "start": 1, "end": 5}, "relation": {"relation": "other"},
                 "summary_span": {"text": "", "start": None, "end": None}, "difficulty": {"difficulty": "easy"}},
    )
    return project


@pytest.mark.django_db
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
def test_ordinary_rows_never_fall_back(monkeypatch):
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 20)
    project = _plain_project()
    Response.objects.filter(pk__gte=BASE + 1000).update(timings={"pre": {"seconds": 2.5}, "post": {"seconds": 1}})
    counting = Counting(monkeypatch)
    got = {fmt: export_bytes(project, "raw", fmt) for fmt in DELIMITED}
    assert counting.calls == 0
    for fmt in DELIMITED:
        assert_same_bytes(got[fmt], python_bytes(monkeypatch, project, "raw", fmt))


SECONDS_CASES = [
    [], [None], [None, None], [0], [0, 0], [1, 2, 3], [0.0], [0.0, 0], [2.5, 0.1, 0.2], [0.1, 0.2], [0.1] * 16,
    [0.1] * 17, [1.333, 12.25, None, 7], [0.0005], [0.0015], [2.675], [1.0005, 0.0005], [0.0004, 0.0006],
    [999999.999], [999999.9995], [1000000], [500000, 499999.9999], [3.14159, 2.71828], [1e-05], [-1.5, 3],
    [-0.0], [1e16], [2**53 + 1], [0.123456789012345678], [33.3333, 66.6667], [1.5, None, 2],
]


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", DELIMITED)
def test_seconds_are_written_as_python_writes_them(monkeypatch, fmt):
    """Every sum of seconds the SQL writes itself is the text of Python's round(sum, 3): one
    response a chunk, so that only those it cannot prove go to Python."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 1)
    project = _plain_project()
    responses = list(Response.objects.filter(item__project=project).order_by("pk"))
    rng = random.Random(3)
    for n, response in enumerate(responses):
        if n < len(SECONDS_CASES):
            values = SECONDS_CASES[n]
        else:  # random sums of up to 3 decimals, and some with more
            places = rng.choice([0, 1, 2, 3, 3, 3, 4, 6])
            values = [round(rng.uniform(0, 10**rng.randrange(0, 5)), places) for _ in range(rng.randrange(1, 9))]
        timings = {f"page_{k:02d}": ({} if value is None and k % 2 else {"seconds": value})
                   for k, value in enumerate(values)}
        Response.objects.filter(pk=response.pk).update(timings=timings)
    counting = Counting(monkeypatch)
    got = export_bytes(project, "raw", fmt)
    if POSTGRES:
        assert 5 < counting.calls < len(responses) / 3
    assert_same_bytes(got, python_bytes(monkeypatch, project, "raw", fmt))


@pytest.mark.django_db
@pytest.mark.parametrize("build", [build_recam, build_cosimlex], ids=["recam", "cosimlex"])
@pytest.mark.parametrize("fmt", DELIMITED)
def test_clean_and_raw_of_the_pinned_projects(monkeypatch, build, fmt):
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 5)
    project = build()
    quality_run_create(project=project)
    for dataset in ("raw", "clean"):
        assert_same_bytes(export_bytes(project, dataset, fmt), python_bytes(monkeypatch, project, dataset, fmt))


@pytest.mark.django_db
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
def test_the_sql_path_is_taken_where_it_applies():
    recam, cosimlex = build_recam(), build_cosimlex()
    for project in (recam, cosimlex):
        chunks = export_sql.text_chunks(project, response_ids=None, delimiter=",", terminator="\r\n",
                                        quoting=(",", "\n", "\r"), render=lambda rows: "")
        assert chunks is not None
        chunks.close()
    # not for other dialects, nor for kinds that do not describe their columns
    assert export_sql.text_chunks(recam, response_ids=None, delimiter=",", terminator="\r\n", quoting=None,
                                  render=lambda rows: "") is None


@pytest.mark.django_db
def test_a_kind_without_sources_uses_python(monkeypatch):
    project = build_recam()
    monkeypatch.setattr(type(get_kind("recam")), "annotation_sources", lambda self: None)
    assert export_sql.text_chunks(project, response_ids=None, delimiter=",", terminator="\r\n",
                                  quoting=(",", "\n", "\r"), render=lambda rows: "") is None
    assert_same_bytes(export_bytes(project, "raw", "csv"), legacy_export(project, "raw", "csv"))


@pytest.mark.django_db
def test_an_empty_selection_and_closing_early(monkeypatch):
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 3)
    project = build_recam()
    empty = Project.objects.create(pk=BASE + 9, name="empty", kind="recam")
    assert export_bytes(empty, "raw", "csv") == python_bytes(monkeypatch, empty, "raw", "csv")
    export = export_open(project=project, dataset="raw", fmt="csv")
    next(export.chunks)
    export.chunks.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("export-sql")]
    # the connection is still usable, and no statement or setting is left behind
    assert Project.objects.filter(pk=project.pk).exists()
    if POSTGRES:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE %s", ["export%"])
            assert cursor.fetchone()[0] == 0


# --- PostgreSQL with its own connections (the caller not in a transaction) ----------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
@pytest.mark.parametrize("size", [7, 100_000], ids=["tiny-chunks", "one-chunk"])
def test_two_connections_on_one_snapshot(monkeypatch, size):
    """Outside a transaction the chunks come from two connections sharing one snapshot: the
    same bytes, in order, and nothing left open."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", size)
    monkeypatch.setattr(export_sql, "MAX_ROWS", 4 * size)
    project = build_tricky()
    _clean_answers()
    recam = build_recam()
    quality_run_create(project=recam)
    assert not connection.in_atomic_block
    for fmt in DELIMITED:
        assert_same_bytes(export_bytes(project, "raw", fmt), python_bytes(monkeypatch, project, "raw", fmt))
        for dataset in ("raw", "clean"):
            assert_same_bytes(export_bytes(recam, dataset, fmt), legacy_export(recam, dataset, fmt))
    assert not [t for t in threading.enumerate() if t.name.startswith("export-sql")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
def test_rows_written_during_an_export_are_not_in_it(monkeypatch):
    """One snapshot: a response saved while the export runs is in neither connection's chunks."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 5)
    project = build_recam()
    before = python_bytes(monkeypatch, project, "raw", "csv")
    export = export_open(project=project, dataset="raw", fmt="csv")
    first = next(export.chunks)
    Response.objects.filter(item__project=project).update(answers={"pre": {"choice": 4}})
    rest = b"".join(export.chunks)
    assert_same_bytes(first + rest, before)


@pytest.mark.django_db
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
def test_the_callers_settings_do_not_matter_and_stay(monkeypatch):
    """Inside the caller's transaction the export sets DateStyle, jit and work_mem for itself
    and puts them back: timestamps are written the same whatever the session's DateStyle."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 4)
    project = build_tricky(n=120, seed=2)
    _clean_answers()
    want = python_bytes(monkeypatch, project, "raw", "csv")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL datestyle = 'SQL, DMY'; SET LOCAL jit = on")
    assert_same_bytes(export_bytes(project, "raw", "csv"), want)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('datestyle'), current_setting('jit')")
        assert cursor.fetchone() == ("SQL, DMY", "on")


def test_every_declared_source_names_a_column_once():
    from annotation.kinds import all_kinds

    for kind in all_kinds():
        sources = kind.annotation_sources()
        if sources is not None:
            assert sorted(sources) == sorted(kind.annotation_columns()), kind.slug


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not POSTGRES, reason="the SQL path is PostgreSQL's")
def test_no_connection_to_spare_exports_on_djangos_own(monkeypatch):
    """When the server refuses the export's own connections (max_connections reached), the
    export runs on Django's connection: the same bytes, not an error."""
    monkeypatch.setattr(export_sql, "TARGET_ROWS", 5)
    project = build_recam()
    want = legacy_export(project, "raw", "csv")
    database = connection.Database
    opened = []

    def refuse(**params):
        opened.append(params)
        raise database.OperationalError("FATAL: sorry, too many clients already")

    monkeypatch.setattr(database, "connect", refuse)
    assert_same_bytes(export_bytes(project, "raw", "csv"), want)
    assert opened  # it did try
    assert not [t for t in threading.enumerate() if t.name.startswith("export-sql")]
