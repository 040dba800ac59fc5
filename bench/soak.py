"""A soak and fault run (issue 20, item 8): many annotators doing what people do, the server
restarted under them, then a check that the database kept every answer once.

Not a timed test: it measures correctness. `--annotators` people (soak_client.Person) work
against gunicorn (deploy/gunicorn.conf.py, DEBUG off) on a fresh database, driven by one thread
through epoll (http_driver.py): plain saves, reloads, double submits, back-button re-posts
with old tokens and a second tab in its own session. `--restarts` times during the run the
gunicorn master gets SIGTERM (its workers finish the requests they hold), the script waits for
it to exit and starts it again; meanwhile the clients retry refused connections, and a request
whose connection broke is sent again, as a browser does.

At the end, from the database (soak_check.py says exactly how):
  lost        pages a save was answered "ok" for that hold neither its answer nor a later one
  foreign     stored page answers that no save which may have been applied carried
  duplicated  two responses of one annotator for one item, two assignments of one unit and
              annotator, a unit with more holders than its slots
and from the clients and the server's log: 5xx answers, other unexpected statuses, "database
is locked", tracebacks, clients still running at the end. It prints and saves (bench/results/)
a JSON and a Markdown summary, and exits 1 when any of these counts is not 0.

    python bench/soak.py --db postgres --annotators 200 --duration 300 --restarts 2
    python bench/soak.py --db sqlite --annotators 200 --duration 120
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

import common
import soak_check
from annotator_pages import recam_study
from http_driver import Driver
from server import Gunicorn, free_port, server_side
from soak_client import GIVE_UP, Person

EXPECTED_STATUSES = {200, 302, 400}  # 400: a form error, e.g. a second choice equal to the first


class Restarter(threading.Thread):
    """Restarts the server at the given monotonic times: SIGTERM, wait for exit, start."""

    def __init__(self, server: Gunicorn, at: list[float]):
        super().__init__(daemon=True)
        self.server, self.at = server, at
        self.down_s: list[tuple[float, float]] = []  # (stopping, starting) seconds of each restart
        self.failed = ""
        self.start()

    def run(self) -> None:
        for when in self.at:
            time.sleep(max(0.0, when - time.monotonic()))
            try:
                stop_s, start_s = self.server.restart()
                self.down_s.append((round(stop_s, 2), round(start_s, 2)))
            except Exception as exc:  # noqa: BLE001 - reported; the clients then fail and the run says so
                self.failed = repr(exc)
                return


def database_check(project_id: int) -> dict[str, Any]:
    """What the database holds: every stored page answer, and the duplicate counts."""
    from django.db.models import Count, F, Q

    from annotation.models import Assignment, Response, Unit

    responses = Response.objects.filter(item__project_id=project_id)
    stored = {pk: answers for pk, answers in responses.exclude(answers={}).values_list("id", "answers")}
    twice = responses.values("assignment__annotator_id", "item_id").annotate(n=Count("id")).filter(n__gt=1)
    same_unit = (
        Assignment.objects.filter(unit__batch__project_id=project_id)
        .values("unit_id", "annotator_id", "channel_assignment_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
    overfilled = (
        Unit.objects.filter(batch__project_id=project_id, every_annotator=False)
        .annotate(holders=Count("assignments", filter=Q(assignments__status__in=Assignment.HOLDING)))
        .filter(holders__gt=F("batch__assignments_per_unit"))
    )
    return {
        "stored": stored,
        "pages_stored": sum(len(a) for a in stored.values()),
        "items_completed": responses.filter(completed_at__isnull=False).count(),
        "assignments_submitted": Assignment.objects.filter(
            unit__batch__project_id=project_id, status=Assignment.Status.SUBMITTED
        ).count(),
        "duplicated_responses": twice.count(),
        "duplicated_assignments": same_unit.count(),
        "overfilled_units": overfilled.count(),
    }


def run(
    db: str,
    *,
    annotators: int,
    duration: float,
    restarts: int,
    think: float,
    items: int,
    items_per_unit: int,
    port: int,
    seed: int,
    keep: bool,
) -> dict[str, Any]:
    name = f"soak_{os.getpid()}"
    url = common.database_create(db, name)
    log = common.RESULTS / f"gunicorn-soak-{db}-{os.getpid()}.log"
    try:
        common.django_setup(url)
        from django.db import connections

        project, batch, invite = recam_study(items, items_per_unit, 3, name="Soak ReCAM")
        connections.close_all()
        server = Gunicorn(url, port=free_port(port), log=log)
        with server:
            started = time.monotonic()
            deadline = started + duration
            driver = Driver("127.0.0.1", server.port, timeout=60)
            people = [Person(n, invite.token, driver, deadline, think=think, seed=seed) for n in range(annotators)]
            restarter = Restarter(server, [started + duration * k / (restarts + 1) for k in range(1, restarts + 1)])
            hung = driver.run([p.main() for p in people], until=deadline + GIVE_UP + 60)
            ended = time.monotonic()
            restarter.join(timeout=120)
        check = database_check(project.pk)
        connections.close_all()
    finally:
        if not keep:
            from django.db import connections

            connections.close_all()
            common.database_drop(db, name)
    sends = [s for p in people for s in p.sends]
    stored = check.pop("stored")
    lost = soak_check.lost_pages(sends, stored)
    foreign = soak_check.foreign_answers(sends, stored)
    log_figures = server_side(log, {p.work for p in people if p.work})
    statuses: Counter = sum((p.statuses for p in people), Counter())
    server_5xx = sum(n for status, n in log_figures["status_counts"].items() if status >= 500)
    counts = {
        "lost": len(lost),
        "foreign": len(foreign),
        "duplicated": check["duplicated_responses"] + check["duplicated_assignments"] + check["overfilled_units"],
        "5xx": max(server_5xx, sum(n for status, n in statuses.items() if status >= 500)),
        "unexpected_statuses": sum(
            n for status, n in statuses.items() if status < 500 and status not in EXPECTED_STATUSES
        ),
        "database_is_locked": log_figures["database_is_locked"],
        "tracebacks": log_figures["tracebacks"],
        "hung_clients": len(hung),
        "client_errors": sum(1 for p in people if p.done_reason.startswith(("error", "server gone"))),
        "restarts_failed": int(bool(restarter.failed)) + max(0, restarts - len(restarter.down_s)),
    }
    return {
        "benchmark": "soak",
        "db": db,
        "annotators": annotators,
        "duration_s": duration,
        "wall_s": round(ended - started, 1),
        "think_s": think,
        "items": items,
        "items_per_unit": items_per_unit,
        "seed": seed,
        "restarts": restarts,
        "restart_down_s": restarter.down_s,
        "restart_error": restarter.failed,
        "requests": sum(statuses.values()),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "saves": dict(Counter(s.outcome for s in sends)),
        "steps": dict(sum((p.steps for p in people), Counter())),
        "connection_retries": dict(sum((p.retries for p in people), Counter())),
        "stop_reasons": dict(Counter(p.done_reason.split(":")[0] for p in people)),
        "database": check,
        "server_log": {k: v for k, v in log_figures.items() if k != "latency_ms"},
        "server_latency_ms": log_figures["latency_ms"],
        "counts": counts,
        "lost_samples": lost[:5],
        "foreign_samples": foreign[:5],
        "problem_samples": [x for p in people for x in p.problems][:8],
        "passed": not any(counts.values()),
        "machine": common.machine(),
        "server_log_path": str(log),
    }


def markdown(r: dict[str, Any]) -> str:
    c, d, saves, steps = r["counts"], r["database"], r["saves"], r["steps"]
    lines = [
        f"Soak on {r['db']}: {r['annotators']} annotators, {r['duration_s']:.0f} s, {r['restarts']} restarts "
        f"(stopping + starting: {', '.join(f'{a:.1f} + {b:.1f}' for a, b in r['restart_down_s'])} s): **{'passed' if r['passed'] else 'FAILED'}**",
        "",
        "| figure | value |",
        "|---|---|",
        f"| requests (statuses) | {r['requests']:,} ({', '.join(f'{k}: {v:,}' for k, v in r['statuses'].items())}) |",
        f"| saves: ok / refused / cut (unknown: sent again) | {saves.get('ok', 0):,} / "
        f"{saves.get('refused', 0):,} / {saves.get('unknown', 0):,} |",
        f"| steps: {' / '.join(sorted(steps))} | {' / '.join(f'{steps[k]:,}' for k in sorted(steps))} |",
        f"| requests sent again (connection refused or cut) | {sum(r['connection_retries'].values()):,} "
        f"{r['connection_retries'] or ''} |",
        f"| pages stored, items completed, units submitted | {d['pages_stored']:,}, {d['items_completed']:,}, "
        f"{d['assignments_submitted']:,} |",
    ]
    lines += [f"| {name.replace('_', ' ')} | {value} |" for name, value in c.items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--annotators", type=int, default=200)
    parser.add_argument(
        "--duration", type=float, default=None, help="seconds (default: 300 on PostgreSQL, 120 on SQLite)"
    )
    parser.add_argument("--restarts", type=int, default=2, help="server restarts, evenly spread over the run")
    parser.add_argument(
        "--think",
        type=float,
        default=0.5,
        help="mean seconds an annotator waits before each step (exponential; 0: none)",
    )
    parser.add_argument("--items", type=int, default=None, help="default: enough that work does not run out")
    parser.add_argument(
        "--items-per-unit",
        type=int,
        default=2,
        help="small units: an annotator often finishes one and is handed the next",
    )
    parser.add_argument("--port", type=int, default=8865, help="first port tried")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="30 annotators, 20 s")
    parser.add_argument("--keep", action="store_true", help="keep the soak's database")
    args = parser.parse_args()
    if args.quick:
        args.annotators, args.duration = 30, 20.0
    duration = args.duration or (300.0 if args.db == "postgres" else 120.0)
    items = args.items or max(300, int(args.annotators * duration / 10))
    result = run(
        args.db,
        annotators=args.annotators,
        duration=duration,
        restarts=args.restarts,
        think=args.think,
        items=items,
        items_per_unit=args.items_per_unit,
        port=args.port,
        seed=args.seed,
        keep=args.keep,
    )
    md = markdown(result)
    print(md)
    for sample in result["lost_samples"] + result["foreign_samples"] + result["problem_samples"]:
        print(f"  {sample}")
    path = common.save_result(f"soak-{args.db}", result)
    path.with_suffix(".md").write_text(md + "\n")
    print(f"results: {path} (and .md); server log: {result['server_log_path']}")
    common.emit(result)
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
