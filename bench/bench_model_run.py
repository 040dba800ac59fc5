"""Benchmark: a model run over 10,000 ReCAM items against the local OpenAI-compatible endpoint
(`python -m annotation.llm.local`, its own process, over HTTP) with 10 % injected faults (429 with
retry-after, 500, a slow reply past the client's timeout, malformed JSON, refusals), through the
real client, prompts, checks and service (`annotation.services.model_runs`).

Two passes, each over every item with its own model name (so neither pass has a cache):

* **crash**: the run is executed in a child process, which gets SIGKILL once about a third of the
  items are answered; the same run is then executed again here (a restart after a crash).
* **restart**: the run is cancelled once about a third of the items are answered (a worker told to
  stop), then started again.

It prints, per pass: items labeled / invalid (by reason) / failed, the endpoint's requests (by
status, paid, paid more than once), the estimate shown before the run against what the calls cost,
the model's accuracy on the answer after reading (scripted at `--accuracy`) and the wall time.
Nothing is asserted; the figures go to bench/README.md.

    python bench/bench_model_run.py                      # 10,000 items, SQLite
    python bench/bench_model_run.py --items 1000 --db postgres
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from decimal import Decimal
from typing import Any

import common
from server import free_port

FAULTS = {"429": 0.04, "500": 0.03, "slow": 0.005, "malformed": 0.0125, "refusal": 0.0125}  # 10 %
PRICES = {"input_price": Decimal("0.15"), "output_price": Decimal("0.60")}  # per million tokens
TIMEOUT, SLOW = 2.0, 3.0  # the client's timeout, the slow fault's delay


def local_admin(url: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}/_local/{path}", data=data, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def answered(run_id: int) -> int:
    from annotation.models import ModelCall

    return ModelCall.objects.filter(run_id=run_id, outcome__in=["labeled", "invalid"]).count()


def execute_in_child(url: str, run_id: int) -> None:
    common.django_setup(url)
    from django.test import override_settings

    from annotation.models import ModelRun
    from annotation.services.model_runs import model_run_execute

    with override_settings(LLM_TIMEOUT_SECONDS=TIMEOUT):
        model_run_execute(run=ModelRun.objects.get(pk=run_id))


def interrupted(url: str, run: Any, how: str, at: int) -> float:
    """Run until `at` items are answered, then kill the child (crash) or cancel (restart); the
    seconds it ran."""
    from annotation.services.model_runs import model_run_cancel

    started = time.perf_counter()
    env = common.server_env(url)
    child = subprocess.Popen([sys.executable, __file__, "--child", str(run.pk), "--url", url], env=env)
    while child.poll() is None and answered(run.pk) < at:
        time.sleep(0.2)
    if how == "crash":
        os.kill(child.pid, signal.SIGKILL)
    else:
        model_run_cancel(run=run)
    child.wait()
    return time.perf_counter() - started


def one_pass(url: str, endpoint: str, project: Any, how: str, *, accuracy: float, truth: dict) -> dict:
    from django.db.models import Sum
    from django.test import override_settings

    from annotation.models import ModelCall, ModelConnection
    from annotation.services.model_runs import model_run_estimate, model_run_execute, model_run_start

    model = f"sim-{how}"
    local_admin(endpoint, "POST", "models", {"model": model, "accuracy": accuracy, "seed": 41, "answers": truth})
    connection = ModelConnection.objects.create(
        team=project.team,
        name=model,
        base_url=f"{endpoint}/v1",
        model=model,
        concurrency=8,
        requests_per_minute=600_000,
        **PRICES,
    )
    run = model_run_estimate(project=project, connection=connection)
    first = interrupted(url, run, how, project.items.count() // 3)
    done_first = answered(run.pk)
    started = time.perf_counter()
    with override_settings(LLM_TIMEOUT_SECONDS=TIMEOUT):
        if how == "crash":  # what a Celery worker does with the task it had when it died (acks_late)
            run = model_run_execute(run=run)
        else:  # the admin's "Run" again: queued, run inline here (no broker)
            run = model_run_start(run=run)
    run.refresh_from_db()
    second = time.perf_counter() - started
    calls = ModelCall.objects.filter(connection=connection)
    outcomes = Counter(calls.values_list("outcome", flat=True))
    reasons = Counter(r.split(":")[0] for r in calls.filter(outcome="invalid").values_list("reason", flat=True))
    right = sum(
        1
        for external_id, labels in calls.filter(outcome="labeled").values_list("item__external_id", "labels")
        if labels.get("post_choice") == truth[external_id]["post_choice"]
    )
    spent = calls.aggregate(total=Sum("cost"))["total"] or Decimal(0)
    requests = local_admin(endpoint, "GET", f"requests?model={model}")
    return {
        "pass": how,
        "status": run.status,
        "items": run.items_total,
        "answered_before_the_stop": done_first,
        "labeled": outcomes["labeled"],
        "invalid": outcomes["invalid"],
        "failed": outcomes["failed"],
        "invalid_reasons": dict(reasons),
        "requests": requests,
        "estimated_cost": str(run.estimated_cost),
        "spent": str(spent),
        "spent_vs_estimate": float(spent / run.estimated_cost) if run.estimated_cost else None,
        "estimated_tokens": [run.estimated_input_tokens, run.estimated_output_tokens],
        "accuracy_post_choice": right / max(1, outcomes["labeled"]),
        "seconds": [round(first, 1), round(second, 1)],
    }


def run(db: str, *, items: int, accuracy: float, keep: bool) -> dict:
    name = f"model_run_{os.getpid()}"
    url = common.database_create(db, name)
    port = free_port(18767)
    state = common.SQLITE_DIR / f"{name}-llm.sqlite3"
    endpoint_process = subprocess.Popen(
        [sys.executable, "-m", "annotation.llm.local", "--port", str(port), "--db", str(state)],
        cwd=common.ROOT,
        stdout=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        common.django_setup(url)
        from annotation.models import Item
        from annotation.services.imports import items_import
        from annotation.services.projects import project_create

        project = project_create(name="model run bench", team=common.bench_team(), kind="recam")
        items_import(project=project, data=common.recam_jsonl(items, target_bytes=items * 1200), filename="items.jsonl")
        truth = {
            e: {"post_choice": p["label"]}
            for e, p in Item.objects.filter(project=project).values_list("external_id", "payload")
        }
        for _ in range(50):
            try:
                local_admin(endpoint, "GET", "state")
                break
            except OSError:
                time.sleep(0.1)
        local_admin(endpoint, "POST", "faults", {"rates": FAULTS, "seed": 7, "retry_after": 0.2, "slow_seconds": SLOW})
        passes = [one_pass(url, endpoint, project, how, accuracy=accuracy, truth=truth) for how in ("crash", "restart")]
        return {
            "benchmark": "model_run",
            "db": db,
            "items": items,
            "faults": FAULTS,
            "accuracy": accuracy,
            "passes": passes,
        }
    finally:
        endpoint_process.terminate()
        endpoint_process.wait()
        from django.db import connections

        connections.close_all()
        if not keep:
            common.database_drop(db, name)
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(f"{state}{suffix}"):
                    os.unlink(f"{state}{suffix}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--accuracy", type=float, default=0.85, help="the scripted model's accuracy")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        execute_in_child(args.url, args.child)
        return
    result = run(args.db, items=args.items, accuracy=args.accuracy, keep=args.keep)
    result["machine"] = common.machine()
    for p in result["passes"]:
        r = p["requests"]
        print(
            f"{p['pass']}: {p['status']}, {p['labeled']:,} labeled + {p['invalid']:,} invalid {p['invalid_reasons']} + "
            f"{p['failed']} failed of {p['items']:,} ({p['answered_before_the_stop']:,} before the stop); requests "
            f"{r['total']:,} {r['by_status']}, paid {r['paid']:,}, paid twice {r['paid_twice']}; estimate "
            f"{p['estimated_cost']} vs spent {p['spent']} ({p['spent_vs_estimate']:.3f}); accuracy "
            f"{p['accuracy_post_choice']:.3f}; {p['seconds'][0]} s + {p['seconds'][1]} s"
        )
    common.save_result("model_run", result)
    common.emit(result)


if __name__ == "__main__":
    main()
