"""Shared helpers for the benchmarks: private databases, Django set-up, test data, RSS, results.

Every benchmark owns its database: a SQLite file under /tmp/bench-<user>/ or a PostgreSQL
database named bench_<name> on 127.0.0.1:5432 (user postgres, trust auth), created and
dropped by the benchmark itself, so nothing here touches db.sqlite3 or the test databases.
"""

from __future__ import annotations

import json
import os
import platform
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
SQLITE_DIR = Path(os.environ.get("BENCH_SQLITE_DIR", f"/tmp/bench-{os.getuid()}"))
PG_HOST = os.environ.get("BENCH_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("BENCH_PG_PORT", "5432"))
PG_USER = os.environ.get("BENCH_PG_USER", "postgres")
SAMPLE = ROOT / "tests" / "fixtures" / "recam" / "Task_1_dev.sample.jsonl"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# --- databases -------------------------------------------------------------------------
def database_url(db: str, name: str) -> str:
    """BENCH_DB_QUERY (e.g. "conn_max_age=600") is appended as the URL's query string, to try
    connection settings without editing config/settings.py."""
    query = os.environ.get("BENCH_DB_QUERY", "")
    query = f"?{query}" if query else ""
    if db == "sqlite":
        SQLITE_DIR.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{SQLITE_DIR / (name + '.sqlite3')}{query}"
    if db == "postgres":
        return f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/bench_{name}{query}"
    raise ValueError(f"unknown --db {db!r} (sqlite or postgres)")


def _pg_admin():
    import psycopg2

    conn = psycopg2.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname="postgres")
    conn.autocommit = True
    return conn


def database_exists(db: str, name: str) -> bool:
    if db == "sqlite":
        return (SQLITE_DIR / f"{name}.sqlite3").exists()
    with _pg_admin() as conn, conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [f"bench_{name}"])
        return cur.fetchone() is not None


def database_drop(db: str, name: str) -> None:
    if db == "sqlite":
        for suffix in ("", "-wal", "-shm", "-journal"):
            path = SQLITE_DIR / f"{name}.sqlite3{suffix}"
            if path.exists():
                path.unlink()
        return
    conn = _pg_admin()
    try:
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "bench_{name}" WITH (FORCE)')
    finally:
        conn.close()


def database_create(db: str, name: str) -> str:
    """A fresh, migrated database; returns its DATABASE_URL."""
    database_drop(db, name)
    if db == "postgres":
        conn = _pg_admin()
        try:
            with conn.cursor() as cur:
                cur.execute(f'CREATE DATABASE "bench_{name}"')
        finally:
            conn.close()
    url = database_url(db, name)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0", "--no-input"],
        cwd=ROOT,
        env=server_env(url),
        check=True,
    )
    return url


def server_env(url: str, **extra: str) -> dict[str, str]:
    """The environment the app runs with in a benchmark: production-like, DEBUG off."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=url,
        DEBUG="False",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="WARNING",
        CELERY_BROKER_URL="",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(extra)
    return env


def django_setup(url: str) -> None:
    """Set Django up in this process against the benchmark's database."""
    for key, value in server_env(url).items():
        if key in ("DATABASE_URL", "DEBUG", "DJANGO_SETTINGS_MODULE", "LOG_LEVEL", "CELERY_BROKER_URL"):
            os.environ[key] = value
    import django

    django.setup()


# --- data ------------------------------------------------------------------------------
def sample_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def recam_jsonl(n: int, *, target_bytes: int | None = None, seed: int = 7, tag: str = "") -> bytes:
    """`n` ReCAM dev-format lines (CRLF, as released), each with a unique passage.

    Built from the 20 real sample rows; every passage gets a unique opening sentence and is
    lengthened with sentences of other sample passages until the file is about
    `target_bytes` (default: 2,760 bytes a line, i.e. 27.6 MB for 10,000 items).
    """
    rows = sample_records()
    rng = random.Random(seed)
    sentences = [s for r in rows for s in re.split(r"(?<=[.!?])\s+", r["article"]) if len(s) > 20]
    per_line = (target_bytes or 2760 * n) / n
    lines = []
    written = 0
    for i in range(n):
        base = rows[i % len(rows)]
        record = dict(base)
        article = f"Report {tag}{i} from desk {rng.randrange(10**6)}. {base['article']}"
        record["article"] = article
        # aim at the running total, so over- and undershoots even out across the file
        grow = per_line * (i + 1) - written - len(json.dumps(record, ensure_ascii=False).encode("utf-8")) - 2
        extra = []
        while grow > 40:
            s = rng.choice(sentences)
            extra.append(s)
            grow -= len(s.encode("utf-8")) + 1
        record["article"] = article + (" " + " ".join(extra) if extra else "")
        lines.append(json.dumps(record, ensure_ascii=False))
        written += len(lines[-1].encode("utf-8")) + 2
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


# --- measurement -----------------------------------------------------------------------
def rss_kb(pid: int | str = "self") -> int:
    """Resident set size of a process in KiB, from /proc (0 when it has gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return 0


def children(pid: int) -> list[int]:
    """Direct children of a process (gunicorn's workers), read from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    return out


def cpu_seconds(pid: int, *, reaped_children: bool = False) -> float:
    """User+system CPU seconds a process has used (utime+stime), plus, when asked, those of its
    children that have exited and been waited for (a gunicorn master's recycled workers)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        if reaped_children:
            ticks += int(fields[13]) + int(fields[14])
        return ticks / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def postgres_backends(dbname: str) -> list[int]:
    """PIDs of the PostgreSQL backends serving one database (their title names it)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    title = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue
            if title.startswith("postgres: ") and f" {dbname} " in title:
                out.append(int(entry))
    return out


def system_busy_seconds() -> float:
    """CPU seconds all processes have spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def machine() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def save_result(name: str, result: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = RESULTS / f"{stamp}-{name}.json"
    path.write_text(json.dumps(result, indent=2, default=str))
    return path


def emit(result: dict[str, Any]) -> None:
    """Last line of stdout: the result as JSON, for run_all.py."""
    print("BENCH-RESULT " + json.dumps(result, default=str), flush=True)


def bench_team() -> Any:
    """The team the benchmarks' projects belong to (every project has one); call after django_setup."""
    from annotation.models import Team

    return Team.objects.get_or_create(name="Bench team")[0]


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
    older = Project.objects.create(name="Bench ReCAM, earlier study", kind="recam", team=bench_team())
    items_import(project=older, data=recam_jsonl(items_per_unit, tag="preload"), filename="earlier.jsonl")
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
