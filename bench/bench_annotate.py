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
import threading
import time
import urllib.parse
from collections import Counter

import common
from annotator_pages import ERROR_MSG, FIELD, SWAP, answer, cookie_header, hidden_fields, recam_study, store_cookies
from http_driver import Driver, Request
from server import Gunicorn, free_port, loadavg, server_side

TARGET_P95_MS = 50.0
TARGET_SAVES_PER_S = 400.0


class Stop(Exception):
    pass


class VirtualAnnotator:
    """One person in a browser: own connection (kept alive while the server allows) and own
    cookies. `main()` is the client that http_driver.Driver runs: it yields requests and is sent
    their replies."""

    def __init__(
        self,
        n: int,
        port: int,
        token: str,
        deadline: float,
        budget: "Budget",
        *,
        mode: str = "swap",
        view_every: int = 7,
        interval: float = 0.0,
        first_at: float = 0.0,
    ):
        self.name = f"annotator-{n}"
        self.port, self.token, self.deadline, self.budget = port, token, deadline, budget
        self.mode, self.view_every = mode, view_every
        # paced (--rate): this annotator's saves are due every `interval` seconds from `first_at`
        self.interval, self.next_at = interval, first_at
        self.cookies: dict[str, str] = {}
        self.records: list[tuple[str, float, float, int]] = []  # (kind, start, seconds, status)
        self.errors: Counter = Counter()
        self.error_samples: list[str] = []
        self.finished_items = 0
        self.done_reason = ""

    # --- HTTP ---------------------------------------------------------------------
    def request(
        self,
        kind: str,
        method: str,
        path: str,
        form: dict | None = None,
        extra_headers: dict | None = None,
        due: float | None = None,
    ):
        """One request (a generator: `status, headers, page = yield from self.request(...)`);
        with `due` (its scheduled time) it is sent then, and its latency counts from then."""
        if time.monotonic() >= self.deadline:
            raise Stop("time cap")
        if not self.budget.take():
            raise Stop("request cap")
        headers = {
            "User-Agent": "bench-annotator",
            "Accept": "text/html",
            **(extra_headers or {}),
            **cookie_header(self.cookies),
        }
        body = b""
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            reply = yield Request(method, path, headers, body, due)
        except (OSError, TimeoutError) as exc:  # refused, reset twice, no answer in time
            self.errors[f"{kind}: {type(exc).__name__}"] += 1
            raise
        start = reply.started
        seconds = reply.finished - (start if due is None else min(due, start))
        store_cookies(self.cookies, reply.headers_all("Set-Cookie"))
        self.records.append((kind, start, seconds, reply.status))
        return reply.status, {k: v for k, v in reply.headers}, reply.body.decode("utf-8", "replace")

    def fail(self, what: str, detail: str = "") -> None:
        self.errors[what] += 1
        if len(self.error_samples) < 3:
            self.error_samples.append(f"{what}: {detail[:300]}")

    # --- the walk -------------------------------------------------------------------
    def main(self):
        try:
            yield from self.walk()
        except Stop as stop:
            self.done_reason = str(stop)
        except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the others
            self.fail(f"exception {type(exc).__name__}", repr(exc))
            self.done_reason = f"error: {exc!r}"

    def walk(self):
        invite = f"/i/{self.token}/"
        status, _, page = yield from self.request("join", "GET", invite)
        if status != 200:
            return self.fail(f"join GET {status}", page)
        token = FIELD["csrfmiddlewaretoken"].search(page).group(1)
        status, headers, page = yield from self.request("join", "POST", invite, {"csrfmiddlewaretoken": token})
        if status != 302:
            return self.fail(f"join POST {status}", page)
        work = urllib.parse.urlsplit(headers["Location"]).path
        status, _, page = yield from self.request("view", "GET", work)
        saved = 0
        while True:
            if status not in (200, 400):
                self.fail(f"page {status}", page)
                status, _, page = yield from self.request("view", "GET", work)
                continue
            if ERROR_MSG.search(page):  # a save that the server refused, shown as a message
                self.fail("save refused (message on next page)", page[page.find('class="msg error"') :][:300])
            form = hidden_fields(page)
            if "page" not in form:
                raise Stop("no more work")
            form.update(answer(form["page"], page))
            due = None
            if self.interval:  # paced: sent at its scheduled time (never made up by skipping)
                due, self.next_at = self.next_at, self.next_at + self.interval
            if self.mode == "swap":  # what annotate.js does: the answer to the save is the next page
                status, _, page = yield from self.request("save", "POST", work, form, SWAP, due=due)
                if status != 200:
                    self.fail(f"save {status}", page)
            else:  # POST/Redirect/GET, as without the page script
                status, _, body = yield from self.request("save", "POST", work, form, due=due)
                if status != 302:
                    self.fail(f"save {status}", body)
            saved += 1
            if status in (200, 302) and form["page"] == "difficulty":
                self.finished_items += 1
            if self.mode != "swap" or (self.view_every and saved % self.view_every == 0):
                status, _, page = yield from self.request("view", "GET", work)


class BackendCpu(threading.Thread):
    """CPU used by the PostgreSQL backends of one database during the run. Sampled every 0.5 s,
    so backends that exit (a recycled gunicorn worker closes its connections) still count."""

    def __init__(self, dbname: str):
        super().__init__(daemon=True)
        self.dbname = dbname
        self.start_cpu = {pid: common.cpu_seconds(pid) for pid in common.postgres_backends(dbname)}
        self.last: dict[int, float] = dict(self.start_cpu)
        self.done = threading.Event()
        self.start()

    def sample(self) -> None:
        for pid in common.postgres_backends(self.dbname):
            cpu = common.cpu_seconds(pid)
            if cpu:
                self.last[pid] = cpu

    def run(self) -> None:
        while not self.done.wait(0.5):
            self.sample()

    def stop(self) -> float:
        self.done.set()
        self.join()
        self.sample()
        return sum(cpu - self.start_cpu.get(pid, 0.0) for pid, cpu in self.last.items())


class Budget:
    """A shared cap on the number of requests (the annotators share one thread)."""

    def __init__(self, limit: int):
        self.left = limit

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


def preload_responses(count: int, *, chunk: int = 5000) -> int:
    """A study that has grown: `count` completed responses of another project's annotators in the
    same tables, written before the run (does a save slow as the tables grow?)."""
    from django.utils import timezone

    from annotation.models import Annotator, Assignment, Project, Response
    from annotation.services.batches import batch_create
    from annotation.services.imports import items_import

    if count <= 0:
        return 0
    items_per_unit = 50
    older = Project.objects.create(name="Bench ReCAM, earlier study", kind="recam", team=common.bench_team())
    items_import(project=older, data=common.recam_jsonl(items_per_unit, tag="preload"), filename="earlier.jsonl")
    batch = batch_create(project=older, name="earlier", items_per_unit=items_per_unit, assignments_per_unit=1)
    unit = batch.units.get()
    item_ids = list(unit.items.order_by("unit_items__position").values_list("id", flat=True))
    answers = {"pre": {"choice": 0}, "post": {"choice": 0}, "difficulty": {"difficulty": "easy"}}
    now, written = timezone.now(), 0
    while written < count:
        people = Annotator.objects.bulk_create(
            Annotator(project=older, channel="invite", external_id=f"earlier-{written + n}")
            for n in range(max(1, min(chunk, count - written) // items_per_unit))
        )
        assignments = Assignment.objects.bulk_create(
            Assignment(unit=unit, annotator=a, status=Assignment.Status.SUBMITTED, submitted_at=now) for a in people
        )
        rows = [
            Response(assignment=s, item_id=i, position=n, answers=answers, completed_at=now)
            for s in assignments
            for n, i in enumerate(item_ids)
        ]
        Response.objects.bulk_create(rows[: count - written], batch_size=1000)
        written += min(len(rows), count - written)
    return written


def worker_memory_mb(pids: list[int]) -> dict[str, list[float]]:
    """Each gunicorn worker's memory, MB: resident (VmRSS, which counts pages shared with the
    master and the other workers in full), proportional (Pss: shared pages split among their
    sharers) and its own (Private_Clean + Private_Dirty: what the worker alone adds)."""
    sizes: dict[str, list[float]] = {"rss": [], "pss": [], "private": []}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
                kb = {line.split(":")[0]: int(line.split()[1]) for line in rollup if line.endswith("kB\n")}
        except (OSError, ValueError):
            continue
        sizes["rss"].append(round(kb["Rss"] / 1024, 1))
        sizes["pss"].append(round(kb["Pss"] / 1024, 1))
        sizes["private"].append(round((kb["Private_Clean"] + kb["Private_Dirty"]) / 1024, 1))
    return sizes


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
        preloaded = preload_responses(preload)
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
