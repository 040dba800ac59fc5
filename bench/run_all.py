"""Run every benchmark of issue 2, item 11, and the soak of issue 20, item 8, on SQLite and/or
PostgreSQL, and print a results table.

    python bench/run_all.py                   # full sizes, both databases (about 20 minutes)
    python bench/run_all.py --db sqlite       # the embedded default only
    python bench/run_all.py --quick           # smoke sizes (about 3 minutes)
    python bench/run_all.py --only import,annotate
    python bench/run_all.py --only soak       # 200 annotators, 5 min on PostgreSQL, 2 on SQLite

Each benchmark runs in its own process against its own throw-away database (SQLite files under
/tmp/bench-<uid>/, PostgreSQL databases bench_* on 127.0.0.1:5432) and its own ports (8765+),
so it never touches db.sqlite3, the test databases or a running dev server. Results (JSON, the
gunicorn logs and a Markdown summary) go to bench/results/, which git ignores. Nothing here
asserts a time: the exit code is 0 unless a benchmark crashed, or the soak found an answer lost
or duplicated, a server error or a locked database (bench/soak.py exits 1 then).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import common

BENCHMARKS = ["import", "annotate", "export", "soak"]
SCRIPTS = {"soak": "soak.py"}  # the others: bench_<name>.py


def run_one(name: str, db: str, args) -> dict | None:
    cmd = [sys.executable, str(common.BENCH / SCRIPTS.get(name, f"bench_{name}.py")), "--db", db]
    if args.quick:
        cmd.append("--quick")
    if name == "annotate":
        cmd += ["--annotators", str(args.annotators)]
        if args.duration and not args.quick:
            cmd += ["--duration", str(args.duration)]
        if not args.quick:
            cmd += ["--repeat", str(args.repeat)]
    if name == "soak" and args.soak_annotators and not args.quick:
        cmd += ["--annotators", str(args.soak_annotators)]
    if name == "export" and args.export_rows and not args.quick:
        cmd += ["--rows", str(args.export_rows)]
    print(f"\n$ {' '.join(cmd[1:])}", flush=True)
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=common.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = None
    for line in proc.stdout:
        if line.startswith("BENCH-RESULT "):
            result = json.loads(line[len("BENCH-RESULT ") :])
        elif "No directory at:" not in line and "mw_instance = middleware" not in line:
            print("  " + line.rstrip(), flush=True)
    try:
        proc.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        print(f"  {name} on {db}: killed after {args.timeout} s")
    if proc.returncode != 0 or result is None:
        print(f"  {name} on {db} FAILED (exit {proc.returncode}) after {time.monotonic() - started:.0f} s")
    return result


def _ms(x) -> str:
    return "-" if x is None else f"{x:.0f} ms" if x >= 10 else f"{x:.1f} ms"


def _mark(ok) -> str:
    return "" if ok is None else (" ✓" if ok else " ✗")


def table(results: dict[tuple[str, str], dict], dbs: list[str]) -> str:
    """Markdown: one row per figure, one column per database."""
    rows: list[tuple[str, str, dict[str, str]]] = []

    def add(label, target, fn):
        cells = {}
        for db in dbs:
            try:
                cells[db] = fn(db)
            except (KeyError, TypeError):
                cells[db] = "-"
        rows.append((label, target, cells))

    imp = lambda db: results[("import", db)]  # noqa: E731
    ann = lambda db: results[("annotate", db)]  # noqa: E731
    exp = lambda db: results[("export", db)]  # noqa: E731
    soak = lambda db: results[("soak", db)]  # noqa: E731
    add("Import: items, MB", "10,000, 27.6", lambda db: f"{imp(db)['items']:,}, {imp(db)['bytes'] / 1e6:.1f}")
    add(
        "Import: time (median of runs)",
        "≤ 0.4 s",
        lambda db: f"{imp(db)['median_s']:.2f} s{_mark(imp(db)['meets_target'])}",
    )
    add(
        "Import: parse / insert / commit / rest",
        "",
        lambda db: "{parse_s:.2f} / {insert_s:.2f} / {commit_s:.2f} / {r:.2f} s".format(
            r=imp(db)["breakdown"]["decode_s"] + imp(db)["breakdown"]["dedupe_lookup_and_rest_s"],
            **imp(db)["breakdown"],
        ),
    )
    add("Annotate: concurrent annotators", "16", lambda db: f"{ann(db)['annotators']}")
    add(
        "Annotate: page view p50 / p95 / p99",
        "p95 ≤ 50 ms",
        lambda db: (
            f"{_ms(ann(db)['views']['p50_ms'])} / {_ms(ann(db)['views']['p95_ms'])}"
            f"{_mark(ann(db)['meets']['view_p95'])} / {_ms(ann(db)['views']['p99_ms'])}"
        ),
    )
    add(
        "Annotate: answer save p50 / p95 / p99",
        "p95 ≤ 50 ms",
        lambda db: (
            f"{_ms(ann(db)['saves']['p50_ms'])} / {_ms(ann(db)['saves']['p95_ms'])}"
            f"{_mark(ann(db)['meets']['save_p95'])} / {_ms(ann(db)['saves']['p99_ms'])}"
        ),
    )
    add(
        "Annotate: server-side p95 view / save",
        "",
        lambda db: (
            f"{_ms(ann(db)['server']['latency_ms']['view']['p95'])} / "
            f"{_ms(ann(db)['server']['latency_ms']['save']['p95'])}"
        ),
    )
    add(
        "Annotate: saves/s", "≥ 400", lambda db: f"{ann(db)['saves_per_s']:.0f}{_mark(ann(db)['meets']['saves_per_s'])}"
    )
    add(
        "Annotate: saves/s of each run (median above)",
        "",
        lambda db: " / ".join(f"{r['saves_per_s']:.0f}" for r in ann(db).get("runs", [])),
    )
    add("Annotate: requests/s (views + saves)", "", lambda db: f"{ann(db)['requests_per_s']:.0f}")
    add("Annotate: server CPU per request", "", lambda db: f"{ann(db)['server_cpu_ms_per_request']:.1f} ms")
    add(
        "Annotate: errors (database is locked)",
        "0",
        lambda db: (
            f"{ann(db)['errors_total']} ({ann(db)['server']['database_is_locked']})"
            f"{_mark(ann(db)['meets']['no_errors'])}"
        ),
    )
    add("Export: annotations", "1,000,000", lambda db: f"{exp(db)['setup']['responses']:,}")
    add(
        "Export via API (gunicorn): rows/s",
        "≥ 100,000",
        lambda db: f"{exp(db)['api']['rows_per_s']:,.0f}{_mark(exp(db)['meets']['api']['rows_per_s'])}",
    )
    add("Export via API: first byte after", "", lambda db: f"{exp(db)['api']['first_byte_s']:.1f} s")
    add(
        "Export via API: worker memory growth",
        "≤ 150 MB",
        lambda db: f"{exp(db)['api']['growth_mb']:.0f} MB{_mark(exp(db)['meets']['api']['memory'])}",
    )
    add(
        "Export in-process: rows/s, memory growth",
        "",
        lambda db: f"{exp(db)['inprocess']['rows_per_s']:,.0f}, {exp(db)['inprocess']['growth_mb']:.0f} MB",
    )
    add(
        "Soak: annotators, seconds, restarts",
        "200; 300 / 120; 2",
        lambda db: f"{soak(db)['annotators']}, {soak(db)['duration_s']:.0f}, {len(soak(db)['restart_down_s'])}",
    )
    add(
        "Soak: requests, saves answered ok",
        "",
        lambda db: f"{soak(db)['requests']:,}, {soak(db)['saves'].get('ok', 0):,}",
    )
    add(
        "Soak: lost / foreign / duplicated",
        "0 / 0 / 0",
        lambda db: "{lost} / {foreign} / {duplicated}".format(**soak(db)["counts"]) + _mark(soak(db)["passed"]),
    )
    add(
        "Soak: 5xx / database is locked / tracebacks",
        "0 / 0 / 0",
        lambda db: "{5xx} / {database_is_locked} / {tracebacks}".format(**soak(db)["counts"]),
    )
    lines = ["| figure | target | " + " | ".join(dbs) + " |", "|---|---|" + "---|" * len(dbs)]
    for label, target, cells in rows:
        lines.append(f"| {label} | {target} | " + " | ".join(cells[db] for db in dbs) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--quick", action="store_true", help="small smoke sizes")
    parser.add_argument("--only", default=",".join(BENCHMARKS), help="comma-separated: import,annotate,export,soak")
    parser.add_argument("--annotators", type=int, default=16)
    parser.add_argument("--duration", type=float, default=None, help="annotate: measured seconds (default 30)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="annotate: runs per database, the median reported (default 3; 1 with --quick)",
    )
    parser.add_argument("--export-rows", type=int, default=None, help="export: annotations (default 1,000,000)")
    parser.add_argument("--soak-annotators", type=int, default=None, help="soak: annotators (default 200)")
    parser.add_argument("--timeout", type=float, default=3600, help="per benchmark, seconds")
    args = parser.parse_args()
    dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = set(names) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(sorted(unknown))}; known: {', '.join(BENCHMARKS)}")
    print(
        f"machine: {common.machine()}; load average {os.getloadavg()[0]:.2f} "
        "(other work on these 2 cores slows every figure: run on a quiet machine)"
    )
    results: dict[tuple[str, str], dict] = {}
    failed = []
    for name in names:
        for db in dbs:
            result = run_one(name, db, args)
            if result is None:
                failed.append(f"{name}/{db}")
            else:
                results[(name, db)] = result
    md = table(results, dbs)
    print("\n" + md)
    summary = {
        "machine": common.machine(),
        "quick": args.quick,
        "failed": failed,
        "results": {f"{n}/{d}": r for (n, d), r in results.items()},
    }
    path = common.save_result("summary", summary)
    path.with_suffix(".md").write_text(md + "\n")
    print(f"\nresults: {path} (and .md)")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
