"""Benchmark 2: annotator page views (GET /a/<key>/) and answer saves (POST) under 16 concurrent
annotators, against gunicorn (deploy/gunicorn.conf.py, gthread, DEBUG off).

Targets (issue 2, item 11): p95 <= 50 ms for views and for saves, >= 400 saves/s, no errors
(in particular no "database is locked" on SQLite).

Each virtual annotator has its own connection (kept alive while the server allows) and cookie
jar; one thread drives them all through epoll (http_driver.py), so that the load generator takes
as little as it can of the CPU it shares with the server. It opens
the invite link (GET, then POST with the CSRF token: a new annotator), then walks the ReCAM
pages as a browser does: GET the page, parse the hidden fields (response, page, shown,
csrfmiddlewaretoken), POST a valid answer. In the default mode (`--mode swap`, what the page
script static/surveys/annotate.js does) the POST carries `X-Page-Swap: 1` and its answer is the
next page, parsed in turn; every `--view-every` saves (default 7, a reload per item) the page is
also fetched with a GET, so page views are measured under the same load. `--mode prg` posts
without the header and follows the redirect with a GET (a browser without the script). Closed
loop, no think time; bounded by a duration and a request cap. The first seconds (warm-up) are
not counted. Latencies are measured by the client (what an annotator waits) and read from
gunicorn's access log (time inside the server).

A closed loop saturates the machine, so its latency is set by its throughput (Little's law:
16 annotators at 500 requests/s wait 32 ms on average, whatever the code does). `--rate R`
measures latency at a given load instead: the annotators together send R saves a second, each
save at its scheduled time (annotator n sends at t0 + n/R + k*16/R), as wrk2 does; a save's
latency is counted from its scheduled time, so a server that falls behind is charged for the
wait it causes (no coordinated omission). Page views (every `--view-every` saves) follow their
save at once.

    python bench/bench_annotate.py --db postgres --rate 400     # latency at the target load

    python bench/bench_annotate.py --db sqlite
    python bench/bench_annotate.py --db postgres --annotators 16 --duration 30
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter

import common
from annotator_pages import recam_study
from http_driver import Driver
from server import BackendCpu, Gunicorn, free_port, loadavg, server_side, worker_memory_mb
from virtual_annotator import Budget, VirtualAnnotator

TARGET_P95_MS = 50.0
TARGET_SAVES_PER_S = 400.0


def summarize(records, kind, t0, t1):
    lat = [s * 1000 for k, start, s, status in records if k == kind and t0 <= start < t1]
    return {
        "n": len(lat),
        "per_s": len(lat) / (t1 - t0) if t1 > t0 else 0.0,
        "p50_ms": common.percentile(lat, 50),
        "p95_ms": common.percentile(lat, 95),
        "p99_ms": common.percentile(lat, 99),
        "max_ms": max(lat) if lat else None,
    }


def run(
    db: str,
    *,
    annotators: int,
    duration: float,
    warmup: float,
    max_requests: int,
    items: int,
    items_per_unit: int,
    annotators_per_item: int,
    port: int,
    workers: int | None,
    threads: int | None,
    max_requests_per_worker: int | None,
    keep: bool,
    mode: str = "swap",
    view_every: int = 7,
    rate: float | None = None,
    preload: int = 0,
) -> dict:
    name = f"annotate_{os.getpid()}"
    url = common.database_create(db, name)
    log = common.RESULTS / f"gunicorn-annotate-{db}-{os.getpid()}.log"
    try:
        common.django_setup(url)
        from django.db import connections

        project, batch, invite = recam_study(items, items_per_unit, annotators_per_item)
        preloaded = common.preload_responses(preload)
        connections.close_all()

        port = free_port(port)
        server = Gunicorn(
            url, port=port, log=log, workers=workers, threads=threads, max_requests=max_requests_per_worker
        )
        server_config = server.config
        with server:
            master = server.proc.pid
            cpu0 = {pid: common.cpu_seconds(pid) for pid in server.workers_pids()}
            cpu0[master] = common.cpu_seconds(master, reaped_children=True)
            self_cpu0 = time.process_time()
            busy0 = common.system_busy_seconds()
            backends = BackendCpu(f"bench_{name}") if db == "postgres" else None
            load0 = loadavg()
            started = time.monotonic()
            deadline = started + warmup + duration
            budget = Budget(max_requests)
            interval = annotators / rate if rate else 0.0
            # a little after the start (joining takes two requests), annotators evenly out of phase
            crowd = [
                VirtualAnnotator(
                    n,
                    port,
                    invite.token,
                    deadline,
                    budget,
                    mode=mode,
                    view_every=view_every,
                    interval=interval,
                    first_at=started + 0.2 + n * interval / annotators,
                )
                for n in range(annotators)
            ]
            hung_at = Driver("127.0.0.1", port).run([a.main() for a in crowd], until=deadline + 120)
            ended = time.monotonic()
            live = server.workers_pids()
            memory = worker_memory_mb(live)
            # a recycled worker's whole life is in the master's reaped-children time: less its
            # share from before the run
            server_cpu = (
                common.cpu_seconds(master, reaped_children=True)
                - cpu0[master]
                + sum(common.cpu_seconds(pid) - cpu0.get(pid, 0.0) for pid in live)
                - sum(v for pid, v in cpu0.items() if pid != master and pid not in live)
            )
            client_cpu = time.process_time() - self_cpu0
            busy = common.system_busy_seconds() - busy0
            db_cpu = backends.stop() if backends else 0.0
            load1 = loadavg()
        hung = [crowd[i].name for i in hung_at]

        records = [r for a in crowd for r in a.records]
        t0 = started + warmup
        t1 = min(ended, deadline)
        if records:
            t1 = min(t1, max(start + s for _, start, s, _ in records))
        views, saves = summarize(records, "view", t0, t1), summarize(records, "save", t0, t1)
        # how evenly the server shares itself: saves of each annotator in the measured window
        # (a keep-alive connection stays with the worker process that accepted it)
        per_annotator = sorted(
            sum(1 for k, start, _, _ in a.records if k == "save" and t0 <= start < t1) for a in crowd
        )
        errors: Counter = Counter()
        for a in crowd:
            errors.update(a.errors)
        work_paths = {f"/a/{key}/" for key in _annotator_keys(url, project.pk)}
        server = server_side(log, work_paths)
        errors_total = sum(errors.values()) + server["database_is_locked"] + server["tracebacks"] + len(hung)
        measured_s = t1 - t0
        result = {
            "benchmark": "annotate",
            "db": db,
            "annotators": annotators,
            "mode": mode,
            "view_every": view_every if mode == "swap" else 1,
            "rate": rate,  # saves/s scheduled (None: closed loop)
            "measured_s": measured_s,
            "warmup_s": warmup,
            "requests_total": len(records),
            "requests_per_s": (views["n"] + saves["n"]) / measured_s if measured_s > 0 else 0,
            "views": views,
            "saves": saves,
            "saves_per_s": saves["per_s"],
            "items_completed": sum(a.finished_items for a in crowd),
            "items_per_s": sum(a.finished_items for a in crowd) / measured_s if measured_s > 0 else 0,
            "preloaded_responses": preloaded,
            "worker_rss_mb": memory["rss"],
            "worker_pss_mb": memory["pss"],
            "worker_private_mb": memory["private"],
            "saves_per_annotator": per_annotator,
            "errors": dict(errors),
            "error_samples": [s for a in crowd for s in a.error_samples][:5],
            "errors_total": errors_total,
            "hung_annotators": hung,
            "stop_reasons": dict(Counter(a.done_reason for a in crowd)),
            "server": server,
            "server_config": server_config,
            "cpu_s": {
                "server": server_cpu,
                "load_generator": client_cpu,
                "postgres_backends": db_cpu,
                "other_processes": max(0.0, busy - server_cpu - client_cpu - db_cpu),
                "wall": ended - started,
                "cores": os.cpu_count(),
            },
            "server_cpu_ms_per_request": 1000 * server_cpu / max(1, len(records)),
            # the machine's speed: the load generator does the same work for every request, yet
            # its CPU a request moved from 0.27 to 0.47 ms between runs of one day (bench/README.md)
            "load_generator_cpu_ms_per_request": 1000 * client_cpu / max(1, len(records)),
            "loadavg_before_after": [load0, load1],
            "targets": {"p95_ms": TARGET_P95_MS, "saves_per_s": TARGET_SAVES_PER_S},
        }
        result["meets"] = {
            "view_p95": (views["p95_ms"] or 1e9) <= TARGET_P95_MS,
            "save_p95": (saves["p95_ms"] or 1e9) <= TARGET_P95_MS,
            "saves_per_s": saves["per_s"] >= TARGET_SAVES_PER_S,
            "no_errors": errors_total == 0,
        }
        result["db_check"] = _db_check(url, project.pk)
        return result
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            common.database_drop(db, name)


def _annotator_keys(url: str, project_id: int) -> list[str]:
    from annotation.models import Annotator

    return list(Annotator.objects.filter(project_id=project_id).values_list("access_key", flat=True))


def _db_check(url: str, project_id: int) -> dict:
    """What the server stored: answered pages, finished items, no duplicated response."""
    from django.db.models import Count

    from annotation.models import Response

    qs = Response.objects.filter(item__project_id=project_id)
    pages = sum(len(a) for a in qs.exclude(answers={}).values_list("answers", flat=True).iterator())
    dupes = qs.values("assignment_id", "item_id").annotate(n=Count("id")).filter(n__gt=1).count()
    return {
        "pages_stored": pages,
        "items_completed": qs.filter(completed_at__isnull=False).count(),
        "duplicate_responses": dupes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--annotators", type=int, default=16)
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds (after warm-up)")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--max-requests", type=int, default=100_000, help="cap on all requests")
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--items-per-unit", type=int, default=5)
    parser.add_argument("--annotators-per-item", type=int, default=3)
    parser.add_argument("--port", type=int, default=8765, help="first port tried")
    parser.add_argument("--workers", type=int, default=None, help="default: deploy/gunicorn.conf.py")
    parser.add_argument("--threads", type=int, default=None, help="default: deploy/gunicorn.conf.py")
    parser.add_argument(
        "--worker-max-requests", type=int, default=None, help="gunicorn max_requests (default: deploy/gunicorn.conf.py)"
    )
    parser.add_argument(
        "--mode",
        choices=["swap", "prg"],
        default="swap",
        help="swap: a save is one POST answered with the next page (the page script); "
        "prg: POST, redirect, GET (no script)",
    )
    parser.add_argument(
        "--view-every",
        type=int,
        default=7,
        help="swap mode: also GET the page after every N saves (a reload per item), 0: never",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        help="saves per second, all annotators together, each at its scheduled time "
        "(latency counted from then); default: closed loop, as fast as the server answers",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="run N times (a fresh database each) and report the median run by saves/s"
    )
    parser.add_argument(
        "--preload",
        type=int,
        default=0,
        help="first write this many completed responses of an earlier study into the same tables "
        "(e.g. 1000000: does a save slow as a study grows?)",
    )
    parser.add_argument("--quick", action="store_true", help="5 s, 300 items")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()
    if args.quick:
        args.duration, args.warmup, args.items, args.repeat = 5.0, 1.0, 300, 1
    runs = []
    for n in range(args.repeat):
        runs.append(
            run(
                args.db,
                annotators=args.annotators,
                duration=args.duration,
                warmup=args.warmup,
                max_requests=args.max_requests,
                items=args.items,
                items_per_unit=args.items_per_unit,
                annotators_per_item=args.annotators_per_item,
                port=args.port,
                workers=args.workers,
                threads=args.threads,
                max_requests_per_worker=args.worker_max_requests,
                keep=args.keep,
                mode=args.mode,
                view_every=args.view_every,
                rate=args.rate,
                preload=args.preload,
            )
        )
        if args.repeat > 1:
            r = runs[-1]
            print(
                f"  run {n + 1} of {args.repeat}: {r['saves_per_s']:.0f} saves/s, p95 save "
                f"{r['saves']['p95_ms']:.1f} ms, view {r['views']['p95_ms']:.1f} ms; "
                f"server CPU {r['server_cpu_ms_per_request']:.2f} ms a request, load generator "
                f"{r['load_generator_cpu_ms_per_request']:.3f} ms",
                flush=True,
            )
    # the median run by saves/s stands for all (the machine's noise moves whole runs)
    result = sorted(runs, key=lambda r: r["saves_per_s"])[(len(runs) - 1) // 2]
    result["runs"] = [
        {
            "saves_per_s": r["saves_per_s"],
            "save_p95_ms": r["saves"]["p95_ms"],
            "view_p95_ms": r["views"]["p95_ms"],
            "server_cpu_ms_per_request": r["server_cpu_ms_per_request"],
            "load_generator_cpu_ms_per_request": r["load_generator_cpu_ms_per_request"],
            "meets": r["meets"],
        }
        for r in runs
    ]
    result["machine"] = common.machine()
    v, s = result["views"], result["saves"]
    fmt = lambda x: "-" if x is None else f"{x:.1f}"  # noqa: E731
    load = f"paced at {args.rate:g} saves/s" if args.rate else "closed loop"
    median = f", the median of {args.repeat} runs" if args.repeat > 1 else ""
    print(
        f"annotate on {args.db} ({args.mode}, {load}), {args.annotators} annotators, "
        f"{result['measured_s']:.1f} s measured{median}:"
    )
    print(f"  views: {v['per_s']:.0f}/s  p50 {fmt(v['p50_ms'])} p95 {fmt(v['p95_ms'])} p99 {fmt(v['p99_ms'])} ms")
    print(f"  saves: {s['per_s']:.0f}/s  p50 {fmt(s['p50_ms'])} p95 {fmt(s['p95_ms'])} p99 {fmt(s['p99_ms'])} ms")
    srv = result["server"]["latency_ms"]
    for kind in ("view", "save"):
        if kind in srv:
            print(
                f"  server-side {kind}: p50 {fmt(srv[kind]['p50'])} p95 {fmt(srv[kind]['p95'])} "
                f"p99 {fmt(srv[kind]['p99'])} ms"
            )
    print(
        f"  errors: {result['errors_total']} {result['errors'] or ''} database is locked: "
        f"{result['server']['database_is_locked']}; items completed {result['items_completed']}; "
        f"cpu server {result['cpu_s']['server']:.1f} s, load generator {result['cpu_s']['load_generator']:.1f} s, "
        f"postgres {result['cpu_s']['postgres_backends']:.1f} s, "
        f"other processes {result['cpu_s']['other_processes']:.1f} s of {result['cpu_s']['wall'] * os.cpu_count():.0f} s"
    )
    print(f"  saves per annotator: {result['saves_per_annotator']}")
    print(
        f"  completed items: {result['items_per_s']:.1f}/s (an item is {7} pages of ReCAM); responses in the "
        f"tables beforehand: {result['preloaded_responses']:,}; worker memory (MB): RSS {result['worker_rss_mb']}, "
        f"PSS {result['worker_pss_mb']}, private {result['worker_private_mb']}"
    )
    print(
        f"  server CPU per request: {result['server_cpu_ms_per_request']:.2f} ms "
        f"(2 cores fully used by the server alone: about {2000 / result['server_cpu_ms_per_request']:.0f} requests/s)"
    )
    print(
        f"  load generator CPU per request: {result['load_generator_cpu_ms_per_request']:.3f} ms (the same work in "
        f"every run: how fast the machine ran; saves/s x this = {result['saves_per_s'] * result['load_generator_cpu_ms_per_request']:.0f})"
    )
    print(f"  meets: {result['meets']}")
    common.save_result(f"annotate-{args.db}", result)
    common.emit(result)


if __name__ == "__main__":
    main()
