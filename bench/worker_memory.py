"""Each gunicorn worker's memory, idle, after a burst of page saves, after each hostile input of
issue 37 and after a valid import of 10,000 items (27.6 MB: what one request may hold the longest), against a live gunicorn as deploy/gunicorn.conf.py configures it: the figures the
memory limits in deploy/ are set from (deploy/README.md), and the check of the issue's "done
when": every hostile input answered in under 2 s with a 4xx, no worker replaced, no 5xx or worker
timeout in the server's log.

Memory per worker from /proc/<pid>/status: VmRSS (resident now) and VmHWM (the peak resident size
since the worker started), and from smaps_rollup its private pages (what it adds to the pages it
shares with the master). Times are the client's, one request at a time.

    python bench/worker_memory.py --db sqlite
    python bench/worker_memory.py --db postgres --burst 20
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import common
from annotator_pages import recam_study
from http_driver import Driver
from server import Gunicorn, free_port, worker_memory_mb
from virtual_annotator import Budget, VirtualAnnotator

PASSWORD = "worker-memory-37"
TASK_FILE = common.ROOT / "tests" / "fixtures" / "task_files" / "sentiment.yaml"
#: the issue's bound on a hostile input's answer
LIMIT_S = 2.0


def alias_bomb(levels: int = 9) -> str:
    """Nine anchors of nine aliases each: 519 bytes that expand to 9**8 strings."""
    lines = ["description: &a0 lol"]
    for level in range(1, levels):
        lines.append(f"l{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


DEEP = 20_000
DEEP_JSON = "[" * DEEP + "]" * DEEP
BIG = "9" * 5_000


def hostile_inputs(recam: int, task: int) -> list[tuple[str, str, str, bytes, str]]:
    """(what, method, path, body, content type) of each hostile input of the issue."""
    projects, batches = "/api/projects/", "/api/batches/"

    def task_file(text: str) -> bytes:
        return json.dumps({"name": "hostile", "task_file": text}).encode()

    def upload(path: str, name: str, data: str) -> tuple[str, str, bytes, str]:
        return ("POST", path, *multipart(name, data.encode(), model="m" if "predictions" in path else ""))

    imports, predictions = f"/api/projects/{recam}/import/", f"/api/projects/{recam}/predictions/"
    task_import = f"/api/projects/{task}/import/"
    ls_task = '[{{"id": 1, "data": {{"text": "a"}}, "annotations": [{{"result": [], {}}}]}}]'
    json_body = "application/json"
    return [
        ("baseline: GET /api/projects/ (the same Basic login)", "GET", projects, b"", json_body),
        ("task file: alias bomb (519 bytes)", "POST", projects, task_file(alias_bomb()), json_body),
        ("task file: YAML 20,000 deep", "POST", projects, task_file("title: x\nitem: " + DEEP_JSON), json_body),
        ("task file: 5,000-digit integer", "POST", projects, task_file(f"title: x\nitem:\n  n: {BIG}\n"), json_body),
        ("task file: .nan", "POST", projects, task_file("title: x\nitem:\n  n: .nan\n"), json_body),
        ("task file: lone surrogate", "POST", projects, task_file('title: "\\ud800"\n'), json_body),
        (
            "study file: alias bomb",
            "POST",
            batches,
            json.dumps({"project": recam, "name": "s", "study": alias_bomb()}).encode(),
            json_body,
        ),
        (
            "API body: 20,000 deep",
            "POST",
            projects,
            ('{"name": "x", "settings": ' + DEEP_JSON + "}").encode(),
            json_body,
        ),
        ("API body: 5,000-digit integer", "POST", projects, ('{"name": "x", "team": ' + BIG + "}").encode(), json_body),
        ("API body: NaN", "POST", projects, b'{"name": "x", "settings": {"too_fast_seconds": NaN}}', json_body),
        ("API body: 1e309", "POST", projects, b'{"name": "x", "settings": {"too_fast_seconds": 1e309}}', json_body),
        ("API body: lone surrogate name", "POST", projects, b'{"name": "\\ud800", "kind": "recam"}', json_body),
        ("API body: NUL name", "POST", projects, b'{"name": "a\\u0000", "kind": "recam"}', json_body),
        ("JSONL import: 20,000 deep", *upload(imports, "i.jsonl", '{"id": "x", "meta": ' + DEEP_JSON + "}\n")),
        ("JSONL import: 5,000-digit integer", *upload(imports, "i.jsonl", '{"id": "x", "n": ' + BIG + "}\n")),
        ("JSON array import: 20,000 deep", *upload(task_import, "i.json", '[{"id": "x", "text": ' + DEEP_JSON + "}]")),
        ("Label Studio: lead_time NaN", *upload(task_import, "ls.json", ls_task.format('"lead_time": NaN'))),
        ("Label Studio: lead_time 1e309", *upload(task_import, "ls.json", ls_task.format('"lead_time": 1e309'))),
        (
            "Label Studio: completed_by 5,000 digits",
            *upload(task_import, "ls.json", ls_task.format('"completed_by": ' + BIG)),
        ),
        ("predictions: NaN", *upload(predictions, "p.jsonl", '{"id": "x", "label": NaN}\n')),
        ("predictions: 20,000 deep", *upload(predictions, "p.jsonl", '{"id": "x", "label": ' + DEEP_JSON + "}\n")),
    ]


def multipart(name: str, data: bytes, *, model: str = "") -> tuple[bytes, str]:
    """(body, content type) of a form uploading `data` as `file` (and a predictions' `model`)."""
    boundary = uuid.uuid4().hex
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n{model}\r\n' if model else ""
    head += f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n\r\n'
    return head.encode() + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def send(port: int, method: str, path: str, body: bytes, content_type: str) -> tuple[int, float, str]:
    credentials = base64.b64encode(f"boss:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body or None,
        method=method,
        headers={"Content-Type": content_type, "Authorization": f"Basic {credentials}", "Accept": "application/json"},
    )
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, text = answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as answer:
        status, text = answer.code, answer.read().decode("utf-8", "replace")
    return status, time.monotonic() - began, text


def status_mb(pids: list[int]) -> dict[int, dict[str, float]]:
    """VmRSS and VmHWM of each worker, MB (with its private pages from smaps_rollup)."""
    found = {}
    for pid in pids:
        with open(f"/proc/{pid}/status") as fh:
            kb = {line.split(":")[0]: int(line.split()[1]) for line in fh if line.startswith(("VmRSS", "VmHWM"))}
        private = worker_memory_mb([pid])["private"]
        found[pid] = {"rss": round(kb["VmRSS"] / 1024, 1), "hwm": round(kb["VmHWM"] / 1024, 1), "private": private[0]}
    return found


def burst(port: int, token: str, seconds: float, annotators: int = 8) -> int:
    """Closed-loop page saves (bench_annotate's virtual annotators) for `seconds`: saves made."""
    deadline = time.monotonic() + seconds
    crowd = [VirtualAnnotator(n, port, token, deadline, Budget(100_000)) for n in range(annotators)]
    Driver("127.0.0.1", port).run([a.main() for a in crowd], until=deadline + 60)
    return sum(1 for a in crowd for kind, *_ in a.records if kind == "save")


def setup() -> tuple[int, int, int, str]:
    """A superuser in the bench team, a ReCAM project with an open batch, a task file project and
    an empty ReCAM project (for the valid import): their ids and the invite's token."""
    from django.contrib.auth import get_user_model

    from annotation.services.projects import project_create

    team = common.bench_team()
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    user.teams.add(team)
    project, _batch, invite = recam_study(600, 5, 3)
    task = project_create(name="Task file", team=team, task_file=TASK_FILE.read_text(encoding="utf-8"))
    empty = project_create(name="Import", kind="recam", team=team)
    return project.pk, task.pk, empty.pk, invite.token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--burst", type=float, default=15.0, help="seconds of page saves")
    parser.add_argument("--port", type=int, default=8780)
    parser.add_argument("--worker-max-memory-mb", default="", help="GUNICORN_WORKER_MAX_MEMORY_MB (RLIMIT_AS)")
    parser.add_argument("--import-items", type=int, default=10_000, help="a valid import's items, last")
    args = parser.parse_args()
    name = f"memory_{os.getpid()}"
    url = common.database_create(args.db, name)
    log = common.RESULTS / f"gunicorn-memory-{args.db}-{os.getpid()}.log"
    try:
        common.django_setup(url)
        from django.db import connections

        recam, task, big, token = setup()
        connections.close_all()
        port = free_port(args.port)
        env = {"GUNICORN_LOG_LEVEL": "info", "GUNICORN_WORKER_MAX_MEMORY_MB": args.worker_max_memory_mb}
        with Gunicorn(url, port=port, log=log, env=env) as server:
            workers = sorted(server.workers_pids())
            report = {"workers": len(workers), "idle": status_mb(workers)}
            report["saves"] = burst(port, token, args.burst)
            report["after_saves"] = status_mb(workers)
            answers = []
            for what, method, path, body, content_type in hostile_inputs(recam, task):
                status, seconds, text = send(port, method, path, body, content_type)
                answers.append({"input": what, "status": status, "seconds": round(seconds, 3), "answer": text[:120]})
            report["hostile"] = answers
            report["after_hostile"] = status_mb(workers)
            data = common.recam_jsonl(args.import_items, tag="big")
            status, seconds, _text = send(port, "POST", f"/api/projects/{big}/import/", *multipart("big.jsonl", data))
            report["import"] = {"items": args.import_items, "mb": round(len(data) / 2**20, 1), "status": status}
            report["import"]["seconds"] = round(seconds, 2)
            report["after_import"] = status_mb(workers)
            report["same_workers"] = sorted(server.workers_pids()) == workers
            everything = worker_memory_mb([server.proc.pid, *workers])
            report["master_rss_mb"] = everything["rss"][0]
            report["total_pss_mb"] = round(sum(everything["pss"]), 1)
        text = Path(log).read_text(errors="replace")
        report["log_5xx"] = len(re.findall(r'" 5\d\d ', text))
        report["log_worker_timeouts"] = text.count("WORKER TIMEOUT")
        report["log_tracebacks"] = text.count("Traceback")
        print_report(report)
        common.save_result(f"worker-memory-{args.db}", report)
    finally:
        common.database_drop(args.db, name)


def print_report(report: dict) -> None:
    for phase in ("idle", "after_saves", "after_hostile", "after_import"):
        rows = ", ".join(f"RSS {m['rss']} / peak {m['hwm']} / private {m['private']}" for m in report[phase].values())
        print(f"{phase:>13}: {rows} MB")
    print(f"  page saves in the burst: {report['saves']}; then the import of {report['import']}")
    print(f"  master RSS {report['master_rss_mb']} MB; master and workers together (PSS) {report['total_pss_mb']} MB")
    hostile = [a for a in report["hostile"] if not a["input"].startswith("baseline")]
    slow = [a for a in hostile if a["seconds"] >= LIMIT_S or not 400 <= a["status"] < 500]
    for answer in report["hostile"]:
        print(f"  {answer['status']} {answer['seconds'] * 1000:7.0f} ms  {answer['input']}")
    print(
        f"  same workers throughout: {report['same_workers']}; log: 5xx {report['log_5xx']}, "
        f"worker timeouts {report['log_worker_timeouts']}, tracebacks {report['log_tracebacks']}; "
        f"over {LIMIT_S} s or not a 4xx: {len(slow)}"
    )


if __name__ == "__main__":
    main()
