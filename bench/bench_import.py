"""Benchmark 1: import 10,000 ReCAM-sized items (27.6 MB) with annotation.services.imports.items_import.

Target (issue 2, item 11): <= 0.4 s. Each timed run imports the whole file into a fresh project
(so every item is new); one more instrumented run splits the time into decode / parse
(JSON lines, validation, content ids) / insert (preparing rows in Python vs the database's
execute; with COPY fed while the file is parsed, the parsing it pulls counts as parse).

    python bench/bench_import.py --db sqlite
    python bench/bench_import.py --db postgres --items 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import threading
import time
from contextlib import contextmanager

import common
from server import Gunicorn, free_port

TARGET_SECONDS = 0.4


class Clock:
    """Accumulates the time spent in wrapped callables.

    Each key gets its own time only: time in a wrapped call nested inside another (the parsing
    that PostgreSQL's COPY pulls while it runs) counts for the inner key. Nesting is tracked per
    thread: on SQLite a parser thread runs beside the writer, so there the keys add up to more
    than the wall time (the overlap).
    """

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._local = threading.local()  # per thread, per open span: time spent in the spans inside it
        self._lock = threading.Lock()

    def add(self, key: str, seconds: float) -> None:
        with self._lock:
            self.seconds[key] = self.seconds.get(key, 0.0) + seconds
            self.calls[key] = self.calls.get(key, 0) + 1

    @contextmanager
    def span(self, key: str):
        nested_stack = self._local.__dict__.setdefault("nested", [])
        nested_stack.append(0.0)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - t0
            nested = nested_stack.pop()
            if nested_stack:
                nested_stack[-1] += elapsed
            self.add(key, elapsed - nested)

    def wrap(self, key: str, fn):
        def timed(*args, **kwargs):
            with self.span(key):
                return fn(*args, **kwargs)

        return timed

    def wrap_gen(self, key: str, fn):
        """Times only the work done inside the generator (each next()), not its consumer."""

        def timed(*args, **kwargs):
            it = iter(fn(*args, **kwargs))
            while True:
                with self.span(key):
                    try:
                        value = next(it)
                    except StopIteration:
                        return
                yield value

        return timed


@contextmanager
def instrumented(clock: Clock):
    """Temporarily wraps the functions items_import goes through (restored afterwards).

    Works with the ORM import (bulk_create) and with the direct one (INSERTs fed by a parser
    thread / COPY fed while the file is parsed): "insert" is the Python side of writing rows,
    "insert.db_execute" the INSERT or COPY statements minus the parsing they pulled (on SQLite
    the writer's statements, which run while the parser thread works on).
    """
    from django.db import connection
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.utils import CursorWrapper
    from django.db.models.query import QuerySet

    from annotation.kinds import get_kind, recam
    from annotation.services import imports, item_inserts

    kind = get_kind("recam")
    patches = [
        (imports, "decode_upload", clock.wrap, "decode"),
        (recam, "jsonl_records", clock.wrap_gen, "parse.json_lines"),
        (recam, "content_id", clock.wrap, "parse.content_id"),
        (QuerySet, "bulk_create", clock.wrap, "insert"),
        (BaseDatabaseWrapper, "commit", clock.wrap, "commit"),
    ] + [
        (item_inserts, name, clock.wrap, "insert")
        for name in ("_insert_executemany", "_insert_sqlite", "_insert_copy", "_insert_orm", "payload_json")
        if hasattr(item_inserts, name)
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _, _ in patches]
    for owner, name, wrapper, key in patches:
        setattr(owner, name, wrapper(key, getattr(owner, name)))
    kind.parse = clock.wrap("parse", type(kind).parse.__get__(kind))
    if hasattr(type(kind), "iter_parse"):
        kind.iter_parse = clock.wrap_gen("parse", type(kind).iter_parse.__get__(kind))

    def copy_expert(self, sql, file, *args, **kwargs):  # CursorWrapper passes it on unwrapped
        with clock.span("insert.db_execute"):
            return self.cursor.copy_expert(sql, file, *args, **kwargs)

    CursorWrapper.copy_expert = copy_expert

    def on_execute(execute, sql, params, many, context):
        key = "insert.db_execute" if sql.lstrip().upper().startswith(("INSERT", "COPY")) else "db_other"
        with clock.span(key):
            return execute(sql, params, many, context)

    try:
        with connection.execute_wrapper(on_execute):
            yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
        del CursorWrapper.copy_expert
        kind.__dict__.pop("parse", None)
        kind.__dict__.pop("iter_parse", None)


def http_upload_times(url: str, data: bytes, *, repeat: int, items: int) -> list[float]:
    """Seconds per upload of `data` to /api/projects/<id>/import/ on a gunicorn server (the deploy
    config), as staff with basic auth: what a researcher waits for."""
    import base64
    import http.client
    import uuid

    from django.contrib.auth import get_user_model
    from django.db import connections

    from annotation.models import Item, Project

    password = uuid.uuid4().hex
    get_user_model().objects.create_superuser("bench-importer", "", password)
    projects = [Project.objects.create(name=f"http {r}", kind="recam", team=common.bench_team()) for r in range(repeat)]
    connections.close_all()
    auth = "Basic " + base64.b64encode(f"bench-importer:{password}".encode()).decode()
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.jsonl"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    port = free_port(8795)
    times = []
    with Gunicorn(url, port=port, log=common.RESULTS / f"gunicorn-import-{os.getpid()}.log"):
        for project in projects:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            t0 = time.perf_counter()
            conn.request(
                "POST",
                f"/api/projects/{project.pk}/import/",
                body=body,
                headers={"Authorization": auth, "Content-Type": f"multipart/form-data; boundary={boundary}"},
            )
            response = conn.getresponse()
            answer = response.read()
            times.append(time.perf_counter() - t0)
            conn.close()
            assert response.status in (200, 201), (response.status, answer[:300])
    assert all(Item.objects.filter(project=p).count() == items for p in projects)
    return times


def run(db: str, *, items: int, megabytes: float, repeat: int, keep: bool) -> dict:
    name = f"import_{os.getpid()}"
    url = common.database_create(db, name)
    try:
        common.django_setup(url)
        from annotation.models import Item, Project
        from annotation.services.imports import items_import

        data = common.recam_jsonl(items, target_bytes=int(megabytes * 1_000_000))
        # warm-up: imports, registry, connection, statement caches (a tiny file)
        warm = Project.objects.create(name="warm-up", kind="recam", team=common.bench_team())
        items_import(project=warm, data=common.recam_jsonl(20, tag="w"), filename="warm.jsonl")

        times = []
        for r in range(repeat):
            project = Project.objects.create(name=f"bench {r}", kind="recam", team=common.bench_team())
            gc.collect()
            t0 = time.perf_counter()
            report = items_import(project=project, data=data, filename="bench.jsonl")
            times.append(time.perf_counter() - t0)
            assert report.created == items, report

        # re-import of the same file into the last project: everything is a duplicate
        t0 = time.perf_counter()
        again = items_import(project=project, data=data, filename="bench.jsonl")
        reimport = time.perf_counter() - t0
        assert again.created == 0 and again.duplicates == items, again

        clock = Clock()
        project = Project.objects.create(name="instrumented", kind="recam", team=common.bench_team())
        gc.collect()
        with instrumented(clock):
            t0 = time.perf_counter()
            items_import(project=project, data=data, filename="bench.jsonl")
            total = time.perf_counter() - t0
        s = clock.seconds
        parse = s.get("parse", 0) + s.get("parse.json_lines", 0) + s.get("parse.content_id", 0)
        insert = s.get("insert", 0) + s.get("insert.db_execute", 0)
        breakdown = {
            "total_instrumented_s": total,
            "decode_s": s.get("decode", 0),
            "parse_s": parse,
            "parse_json_lines_s": s.get("parse.json_lines", 0),
            "parse_content_id_s": s.get("parse.content_id", 0),
            "parse_validate_and_build_s": s.get("parse", 0),
            "insert_s": insert,
            "insert_django_prepare_s": s.get("insert", 0),
            "insert_db_execute_s": s.get("insert.db_execute", 0),
            "commit_s": s.get("commit", 0),
            "dedupe_lookup_and_rest_s": total - s.get("decode", 0) - parse - insert - s.get("commit", 0),
        }
        assert Item.objects.filter(project=project).count() == items
        http_times = http_upload_times(url, data, repeat=repeat, items=items)
        best, median = min(times), statistics.median(times)
        return {
            "benchmark": "import",
            "db": db,
            "items": items,
            "bytes": len(data),
            "runs_s": times,
            "best_s": best,
            "median_s": median,
            "items_per_s": items / median,
            "reimport_all_duplicates_s": reimport,
            # the upload a researcher makes: multipart POST to the API through gunicorn, answered
            # when the items are stored (parse, checks, insert, response)
            "http_runs_s": http_times,
            "http_median_s": statistics.median(http_times) if http_times else None,
            "breakdown": breakdown,
            "target_s": TARGET_SECONDS,
            # the target is for 10,000 items; a smoke size says nothing about it
            "meets_target": median <= TARGET_SECONDS if items >= 10_000 else None,
        }
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            common.database_drop(db, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--mb", type=float, default=None, help="file size in MB (default 2.76 KB per item)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 items, 1 run")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()
    if args.quick:
        args.items, args.repeat = 1_000, 1
    mb = args.mb if args.mb is not None else args.items * 2760 / 1_000_000
    result = run(args.db, items=args.items, megabytes=mb, repeat=args.repeat, keep=args.keep)
    result["machine"] = common.machine()
    b = result["breakdown"]
    print(
        f"import {result['items']:,} items ({result['bytes'] / 1e6:.1f} MB) on {args.db}: "
        f"median {result['median_s']:.3f} s, best {result['best_s']:.3f} s "
        f"(target <= {TARGET_SECONDS} s for 10,000 items: "
        f"{ {True: 'met', False: 'MISSED', None: 'n/a at this size'}[result['meets_target']] })"
    )
    print(
        "  breakdown: decode {decode_s:.3f} | parse {parse_s:.3f} (json lines {parse_json_lines_s:.3f}, "
        "content ids {parse_content_id_s:.3f}, validate+build {parse_validate_and_build_s:.3f}) | "
        "insert {insert_s:.3f} (prepare {insert_django_prepare_s:.3f}, db execute {insert_db_execute_s:.3f}) | "
        "commit {commit_s:.3f} | dedupe lookup+rest {dedupe_lookup_and_rest_s:.3f} (below 0: parse and insert overlapped)".format(
            **b
        )
    )
    if result["http_median_s"] is not None:
        print(
            f"  over HTTP (multipart upload to the API through gunicorn): median {result['http_median_s']:.3f} s, "
            f"runs {', '.join(f'{t:.3f}' for t in result['http_runs_s'])} s"
        )
    common.save_result(f"import-{args.db}", result)
    common.emit(result)


if __name__ == "__main__":
    main()
