"""quality/exports/forked.py: a large SQLite export written by this process and a forked one.

The bytes are those of the one-process path (compared with the frozen legacy writer of
test_export_fast_path), the two processes read one snapshot (a row changed after the export
began is not in it, on either side), a client that leaves takes the helper with it, and the
path stays off where forking is unsafe. The exports run in a fresh process
(tests/quality/forked_export_run.py): this one has threads by then, and the path forks only a
single-threaded process. SQLite only (on PostgreSQL the database writes the lines,
annotation/export_sql.py); the data is committed, as the exporting processes read it through
their own connections.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from annotation.models import Response
from quality.exports import forked
from quality.services.runs import quality_run_create
from tests.quality.helpers import bulk_responses
from tests.quality.test_export_fast_path import assert_same_bytes, build_recam, export_bytes, legacy_export

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite only"),
]


def run(*args: object) -> dict:
    """tests/quality/forked_export_run.py in a fresh, single-threaded process on the test database."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
           "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.quality.forked_export_run", *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["threads"] == 1 and not report.get("left_running"), report
    return report


def test_two_processes_write_the_bytes_of_one(tmp_path):
    project = build_recam()
    quality_run_create(project=project)
    bulk = bulk_responses(900)
    quality_run_create(project=bulk)
    out = tmp_path / "export"
    for subject in (project, bulk):
        for dataset, fmt in (("raw", "csv"), ("raw", "tsv"), ("clean", "csv")):
            report = run("bytes", subject.pk, dataset, fmt, out)
            assert report["forks"] == 1  # a helper wrote every other span
            assert_same_bytes(out.read_bytes(), legacy_export(subject, dataset, fmt))


def test_a_row_changed_after_the_export_began_is_not_in_it(tmp_path):
    project = bulk_responses(900)
    ids = list(Response.objects.filter(item__project=project).order_by("id").values_list("id", flat=True))
    # 6 spans: the exporting process writes spans 0, 2, 4 and its helper 1, 3, 5; a row of each
    # side's later spans changes once both hold their snapshot, before either has read it
    changed = [ids[len(ids) * 2 // 6 + 5], ids[-1]]
    out = tmp_path / "export"
    report = run("snapshot", project.pk, *changed, tmp_path / "go", out)
    assert report["forks"] == 1
    exported = out.read_bytes()
    assert exported.count(b"\r\n") == len(ids) + 1  # the header and every row, once
    assert b",hard" not in exported  # neither the helper's spans nor the exporter's
    assert export_bytes(project, "raw", "csv").count(b",hard") == 2  # the next export sees both


def test_a_client_that_leaves_takes_the_helper_with_it():
    project = bulk_responses(900)
    report = run("leave", project.pk)
    assert report == {**report, "forks": 1, "helper_gone": True, "in_transaction": False}


def test_it_stays_off_where_forking_is_unsafe_or_small(monkeypatch):
    threads = [1]
    monkeypatch.setattr(forked.threading, "active_count", lambda: threads[0])
    assert forked.applies("default", (1, forked.MIN_IDS + 1))
    assert not forked.applies("default", (1, forked.MIN_IDS))  # too small to pay
    assert not forked.applies("default", None)
    threads[0] = 2
    assert not forked.applies("default", (1, forked.MIN_IDS + 1))  # a thread would not survive the fork
    threads[0] = 1
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert not forked.applies("default", (1, forked.MIN_IDS + 1))


def test_spans_cover_the_bounds_in_order():
    for bounds, parts in (((1, 101), 7), ((5, 6), 4), ((10, 1_000_010), 48)):
        spans = forked.split(bounds, parts)
        assert spans[0][0] == bounds[0] and spans[-1][1] == bounds[1]
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        assert len(spans) <= parts
