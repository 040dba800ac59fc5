"""Benchmark 3: export of 1,000,000 annotations (raw dataset with the item's text, CSV by default).

Targets (issue 2, item 11): >= 100,000 rows/s with the serving process's memory growing <= 150 MB.

Set-up: a ReCAM project of 10,000 items (27.6 MB of passages), one batch of units of 10 items,
100 annotators per unit, so 100,000 assignments and 1,000,000 complete responses (all seven
pages answered, with timings), inserted with COPY on PostgreSQL and one executemany
transaction on SQLite (a few tens of seconds). Then two measurements:

Every row carries the item's text (question and passage, `item_text`), as a researcher's
export does: the export reads and writes the passages, not only the answers.

* api: gunicorn (deploy/gunicorn.conf.py, 1 worker so its memory is the server's; told to stream
  the whole export at once, EXPORT_STREAM_MAX_RECORDS, with a 30-minute worker timeout: a download
  at once is refused above 100,000 records by default, and a researcher's 1M rows are a job) serves
  GET /api/projects/<id>/export/?dataset=raw&format=csv&item_text=true to a staff user (HTTP basic auth); the
  client reads the stream, counts rows and bytes, and samples the worker's RSS from /proc
  every 20 ms. Growth = peak RSS during the download - RSS before it (after a warm-up export).
* inprocess: the same generator (quality.exports.export_open(...).chunks) consumed in this
  process, RSS sampled the same way; shows the export code's own cost without HTTP.
* job: an export job (quality.services.exports.export_job_execute, what the Celery task runs)
  writing its file under a temporary EXPORT_ROOT in this process, RSS sampled the same way.

    python bench/bench_export.py --db postgres
    python bench/bench_export.py --db sqlite --rows 200000 --via inprocess
    python bench/bench_export.py --db sqlite --quick --via job
    python bench/bench_export.py --db postgres --keep      # keep the 1M-row database ...
    python bench/bench_export.py --db postgres --reuse     # ... and measure it again
    python bench/bench_export.py --db postgres --reuse --format tsv --sha256   # hash the bytes

`--sha256` hashes the exported bytes (compare two versions of the code on the same database);
in-process runs also print the process's CPU per row (all its threads).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import os
import time

import common
from export_data import STAFF, build
from server import Gunicorn, RssSampler, free_port, loadavg

TARGET_ROWS_PER_S = 100_000
TARGET_GROWTH_MB = 150


# --- measuring --------------------------------------------------------------------------
def export_inprocess(project_id: int, fmt: str, sha256: bool = False) -> dict:
    from annotation.models import Project

    project = Project.objects.get(pk=project_id)
    from quality.exports import Options, export_open

    source = f"quality.exports.export_open(dataset='raw', item_text={ITEM_TEXT['on']})"

    def chunks():
        return export_open(project=project, dataset="raw", fmt=fmt, options=Options(item_text=ITEM_TEXT["on"])).chunks

    before = common.rss_kb()
    sampler = RssSampler(["self"])
    sampler.peak = {"self": before}
    sampler.start()
    t0 = time.perf_counter()
    first = None
    lines = size = 0
    digest = hashlib.sha256() if sha256 else None
    cpu0 = time.process_time()
    for chunk in chunks():
        if first is None:
            first = time.perf_counter() - t0
        lines += chunk.count(b"\n")
        size += len(chunk)
        if digest is not None:
            digest.update(chunk)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    peak = sampler.stop()["self"]
    rows = lines if fmt == "jsonl" else lines - 1
    return {
        "source": source,
        "rows": rows,
        "bytes": size,
        "seconds": seconds,
        "rows_per_s": rows / seconds,
        "first_byte_s": first,
        "rss_before_mb": before / 1024,
        "rss_peak_mb": peak / 1024,
        "growth_mb": (peak - before) / 1024,
        "process_cpu_s": cpu,
        "sha256": digest.hexdigest() if digest is not None else None,
    }


def export_api(url: str, project_id: int, fmt: str, port: int, log, rows: int, sha256: bool = False) -> dict:
    auth = "Basic " + base64.b64encode(f"{STAFF[0]}:{STAFF[1]}".encode()).decode()
    path = f"/api/projects/{project_id}/export/?dataset=raw&format={fmt}&item_text={str(ITEM_TEXT['on']).lower()}"

    def download(p: str, digest=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        t0 = time.perf_counter()
        conn.request("GET", p, headers={"Authorization": auth, "Host": f"127.0.0.1:{port}"})
        resp = conn.getresponse()
        first = None
        lines = size = 0
        head = b""
        while True:
            block = resp.read(1 << 16)
            if not block:
                break
            if first is None:
                first = time.perf_counter() - t0
                head = block[:300]
            lines += block.count(b"\n")
            size += len(block)
            if digest is not None:
                digest.update(block)
        conn.close()
        return resp.status, lines, size, time.perf_counter() - t0, first, head

    # the whole export streamed at once, however long it takes: what is measured is the streaming
    # (a researcher's export of this size is an export job: --via job)
    stream_all = {"EXPORT_STREAM_MAX_RECORDS": str(rows), "GUNICORN_TIMEOUT": "1800"}
    with Gunicorn(url, port=port, log=log, workers=1, max_requests=0, env=stream_all) as server:
        worker = server.workers_pids()[0]
        # warm-up: the same endpoint on a tiny project, so imports and connections are loaded
        status, *_, head = download(f"/api/projects/{_tiny_project()}/export/?dataset=raw&format={fmt}")
        if status == 404:
            return {"error": "export endpoint not found (404): quality.exports API not wired yet"}
        if status != 200:
            return {"error": f"warm-up export answered {status}: {head!r}"}
        time.sleep(0.3)
        before = common.rss_kb(worker)
        sampler = RssSampler([worker])
        sampler.start()
        cpu0 = common.cpu_seconds(worker)
        digest = hashlib.sha256() if sha256 else None
        status, lines, size, seconds, first, head = download(path, digest)
        cpu = common.cpu_seconds(worker) - cpu0
        peak = sampler.stop()[worker]
        after = common.rss_kb(worker)
    if status != 200:
        return {"error": f"export answered {status}: {head!r}"}
    rows = lines if fmt == "jsonl" else lines - 1
    return {
        "rows": rows,
        "bytes": size,
        "seconds": seconds,
        "rows_per_s": rows / seconds,
        "first_byte_s": first,
        "worker_rss_before_mb": before / 1024,
        "worker_rss_peak_mb": peak / 1024,
        "worker_rss_after_mb": after / 1024,
        "growth_mb": (peak - before) / 1024,
        "worker_cpu_s": cpu,
        "sha256": digest.hexdigest() if digest is not None else None,
    }


def export_job(project_id: int, fmt: str) -> dict:
    """An export job run in this process (what the `run_export` task does), into a temporary folder."""
    import tempfile

    from django.test import override_settings

    from annotation.models import Project
    from quality.models import ExportJob
    from quality.services.exports import export_job_execute

    project = Project.objects.get(pk=project_id)
    with tempfile.TemporaryDirectory(prefix="bench-export-") as root, override_settings(EXPORT_ROOT=root):
        job = ExportJob.objects.create(
            project=project,
            dataset="raw",
            format=fmt,
            file_name=f"bench.{fmt}",
            file_path=f"bench.{fmt}",
            options={"item_text": ITEM_TEXT["on"]},
        )
        before = common.rss_kb()
        sampler = RssSampler(["self"])
        sampler.peak = {"self": before}
        sampler.start()
        t0 = time.perf_counter()
        export_job_execute(job=job)
        seconds = time.perf_counter() - t0
        peak = sampler.stop()["self"]
    return {
        "rows": job.rows_written,
        "bytes": job.size,
        "seconds": seconds,
        "rows_per_s": job.rows_written / seconds,
        "first_byte_s": 0.0,
        "growth_mb": (peak - before) / 1024,
        "status": job.status,
    }


_TINY: dict = {}
#: rows carry the item's text (question and passage), as a researcher's export does; off
#: (`--answers-only`) for an A/B against code whose export had no such option
ITEM_TEXT = {"on": True}


def _tiny_project() -> int:
    return _TINY["id"]


def _make_tiny() -> None:
    from annotation.models import Project
    from annotation.services.imports import items_import

    project, _ = Project.objects.get_or_create(
        name="Bench export warm-up", kind="recam", defaults={"team": common.bench_team()}
    )
    items_import(project=project, data=common.recam_jsonl(5, tag="t"), filename="tiny.jsonl")
    _TINY["id"] = project.pk


def run(
    db: str, *, rows: int, items: int, via: str, fmt: str, port: int, keep: bool, reuse: bool, sha256: bool = False
) -> dict:
    name = f"export_{rows}"
    reused = False
    if reuse and common.database_exists(db, name):
        url = common.database_url(db, name)
        reused = True
    else:
        url = common.database_create(db, name)
    try:
        common.django_setup(url)
        from django.db import connections

        from annotation.models import Project, Response

        project = Project.objects.filter(name="Bench export").first() if reused else None
        if project is not None and Response.objects.filter(item__project=project).count() == rows:
            setup = {"project_id": project.pk, "responses": rows, "reused": True}
        else:
            setup = build(db, rows, items)
        _make_tiny()
        connections.close_all()
        result = {
            "benchmark": "export",
            "db": db,
            "rows_requested": rows,
            "format": fmt,
            "setup": setup,
            "loadavg_before": loadavg(),
            "targets": {"rows_per_s": TARGET_ROWS_PER_S, "growth_mb": TARGET_GROWTH_MB},
        }
        if via in ("api", "both"):
            log = common.RESULTS / f"gunicorn-export-{db}-{os.getpid()}.log"
            result["api"] = export_api(
                url, setup["project_id"], fmt, free_port(port), log, setup["responses"], sha256=sha256
            )
        if via in ("inprocess", "both"):
            result["inprocess"] = export_inprocess(setup["project_id"], fmt, sha256)
            connections.close_all()
        if via == "job":
            result["job"] = export_job(setup["project_id"], fmt)
            connections.close_all()
        result["meets"] = {}
        for key in ("api", "inprocess", "job"):
            r = result.get(key)
            if r and "error" not in r:
                result["meets"][key] = {
                    "rows_per_s": r["rows_per_s"] >= TARGET_ROWS_PER_S,
                    "memory": r["growth_mb"] <= TARGET_GROWTH_MB,
                    "all_rows": r["rows"] == setup["responses"],
                }
        return result
    finally:
        from django.db import connections

        connections.close_all()
        if not keep and not reuse:
            common.database_drop(db, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument(
        "--via",
        choices=["api", "inprocess", "job", "both"],
        default="both",
        help="both: api and inprocess; job: an export job writing its file, in this process",
    )
    parser.add_argument("--format", choices=["csv", "tsv", "jsonl"], default="csv")
    parser.add_argument("--port", type=int, default=8785, help="first port tried")
    parser.add_argument("--quick", action="store_true", help="50,000 rows over 1,000 items")
    parser.add_argument("--keep", action="store_true", help="keep the database (bench_export_<rows>)")
    parser.add_argument("--reuse", action="store_true", help="reuse a kept database of the same size")
    parser.add_argument("--sha256", action="store_true", help="hash the exported bytes (to compare code versions)")
    parser.add_argument(
        "--answers-only",
        action="store_true",
        help="rows without the item's text (the export of the code before issue 15, for an A/B)",
    )
    args = parser.parse_args()
    ITEM_TEXT["on"] = not args.answers_only
    if args.quick:
        args.rows, args.items = 50_000, 1_000
    result = run(
        args.db,
        rows=args.rows,
        items=args.items,
        via=args.via,
        fmt=args.format,
        port=args.port,
        keep=args.keep,
        reuse=args.reuse,
        sha256=args.sha256,
    )
    result["machine"] = common.machine()
    setup = result["setup"]
    print(
        f"export of {setup['responses']:,} annotations on {args.db} ({args.format}); "
        f"set-up {setup.get('build_s', 0):.0f} s{' (reused)' if setup.get('reused') else ''}"
    )
    for key in ("api", "inprocess", "job"):
        r = result.get(key)
        if not r:
            continue
        if "error" in r:
            print(f"  {key}: {r['error']}")
            continue
        print(
            f"  {key}: {r['rows']:,} rows, {r['bytes'] / 1e6:.0f} MB in {r['seconds']:.1f} s = "
            f"{r['rows_per_s']:,.0f} rows/s; first byte {r['first_byte_s']:.2f} s; "
            f"memory growth {r['growth_mb']:.1f} MB"
            + (
                f" (of it the export helper's own {r['helper_private_peak_mb']:.1f} MB)"
                if r.get("helper_private_peak_mb")
                else ""
            )
            + (f"; CPU {r['process_cpu_s'] / r['rows'] * 1e6:.1f} us/row" if r.get("process_cpu_s") else "")
            + (f"; sha256 {r['sha256'][:16]}" if r.get("sha256") else "")
        )
    print(f"  meets: {result['meets']}")
    common.save_result(f"export-{args.db}", result)
    common.emit(result)


if __name__ == "__main__":
    main()
