"""Start and stop a gunicorn serving the app against a benchmark database.

It uses deploy/gunicorn.conf.py (gunicorn's stock sync worker) as deployed, overriding only the bind
address, the log level and, when asked, the number of workers and threads or other settings (`env`).
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import common

DEPLOY_CONF = common.ROOT / "deploy" / "gunicorn.conf.py"


class Gunicorn:
    def __init__(
        self,
        url: str,
        *,
        port: int,
        log: Path,
        workers: int | None = None,
        threads: int | None = None,
        max_requests: int | None = None,
        env: dict[str, str] | None = None,
    ):
        self.url, self.port, self.log = url, port, log
        self.env = dict(env or {})
        self.workers, self.threads, self.max_requests = workers, threads, max_requests
        self.proc: subprocess.Popen | None = None
        self.starts = 0  # a restart appends to the log of the runs before

    @property
    def config(self) -> dict:
        return {
            "conf": str(DEPLOY_CONF.relative_to(common.ROOT)),
            "worker_class": os.environ.get("GUNICORN_WORKER_CLASS", "deploy/gunicorn.conf.py default"),
            "workers": self.workers,
            "threads": self.threads,
            "max_requests": self.max_requests,
        }

    def start(self, ready_path: str = "/admin/login/", timeout: float = 60, *, busy: bool = False) -> None:
        """Start and wait until every worker answers. `busy`: clients are already knocking (a
        restart under load), so the first answer may wait its turn behind theirs, and the
        server is not warmed (they warm it)."""
        extra = {"GUNICORN_BIND": f"127.0.0.1:{self.port}", "GUNICORN_LOG_LEVEL": "warning", **self.env}
        if self.workers:
            extra["WEB_CONCURRENCY"] = str(self.workers)
        if self.threads:
            extra["GUNICORN_THREADS"] = str(self.threads)
        if self.max_requests is not None:
            extra["GUNICORN_MAX_REQUESTS"] = str(self.max_requests)
        cmd = [sys.executable, "-m", "gunicorn", "--config", str(DEPLOY_CONF)]
        cmd += ["--bind", f"127.0.0.1:{self.port}", "config.wsgi:application"]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.log, "ab" if self.starts else "wb")
        self.starts += 1
        self.proc = subprocess.Popen(
            cmd,
            cwd=common.ROOT,
            env=common.server_env(self.url, **extra),
            stdout=self._fh,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}; see {self.log}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout if busy else 5)
                conn.request("GET", ready_path)
                status = conn.getresponse().status
                conn.close()
                # every worker must have booted, so the first measured requests pay no import cost
                if status < 500 and len(self.workers_pids()) >= (self.workers or 1):
                    if not busy:
                        self._warm(ready_path)
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer on port {self.port} within {timeout} s; see {self.log}")

    def _warm(self, path: str) -> None:
        for _ in range(4 * len(self.workers_pids())):
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            conn.request("GET", path)
            conn.getresponse().read()
            conn.close()

    def workers_pids(self) -> list[int]:
        return common.children(self.proc.pid) if self.proc else []

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_fh", None):
            self._fh.close()

    def restart(self) -> tuple[float, float]:
        """SIGTERM to the master, wait for it to exit (its workers finish the requests they hold),
        start again: the seconds the stop took and those until the new workers answered."""
        began = time.monotonic()
        self.stop()
        stopped = time.monotonic()
        self.start(timeout=180, busy=True)
        return stopped - began, time.monotonic() - stopped

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


def free_port(start: int) -> int:
    """The first port from `start` on which nothing listens on 127.0.0.1."""
    import socket

    for port in range(start, start + 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError(f"no free port in {start}-{start + 199}")


def loadavg() -> float:
    return os.getloadavg()[0]


ACCESS = re.compile(r'"(GET|POST) (/[^ ]*) HTTP/[0-9.]+" (\d{3}) \S+ (\d+)ms')


def server_side(log_path, annotator_paths: set[str]) -> dict:
    """Latencies inside gunicorn (access log %(M)s), errors and lock errors from its log."""
    times: dict[str, list[float]] = defaultdict(list)
    statuses: Counter = Counter()
    text = log_path.read_text(errors="replace")
    for m in ACCESS.finditer(text):
        method, path, status, ms = m.group(1), m.group(2), int(m.group(3)), float(m.group(4))
        statuses[status] += 1
        if path in annotator_paths:
            times["view" if method == "GET" else "save"].append(ms)
    return {
        "latency_ms": {
            kind: {
                "p50": common.percentile(v, 50),
                "p95": common.percentile(v, 95),
                "p99": common.percentile(v, 99),
                "n": len(v),
            }
            for kind, v in times.items()
        },
        "status_counts": dict(statuses),
        "database_is_locked": text.count("database is locked"),
        "tracebacks": text.count("Traceback (most recent call last)"),
        "worker_timeouts": text.count("WORKER TIMEOUT"),
    }


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


class RssSampler(threading.Thread):
    """Samples the RSS of some processes every `interval` s; keeps the peak of each. With
    `helpers_of`, also the memory of that process's children (the SQLite export's forked helper)
    that is their own (private pages; the rest they share with the worker), peak of the sum."""

    def __init__(self, pids, interval: float = 0.02, helpers_of: int | None = None):
        super().__init__(daemon=True)
        self.pids, self.interval, self.helpers_of = list(pids), interval, helpers_of
        self.peak = {pid: common.rss_kb(pid) for pid in self.pids}
        self.helpers_peak_kb = 0
        self.stop_event = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stop_event.is_set():
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], common.rss_kb(pid))
            if self.helpers_of is not None and n % 25 == 0:  # every 0.5 s: reading it walks page tables
                own = sum(_private_kb(child) for child in common.children(self.helpers_of))
                self.helpers_peak_kb = max(self.helpers_peak_kb, own)
            n += 1
            time.sleep(self.interval)

    def stop(self) -> dict:
        self.stop_event.set()
        self.join()
        return self.peak


def _private_kb(pid: int) -> int:
    """Private_Clean + Private_Dirty of a process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            return sum(int(line.split()[1]) for line in fh if line.startswith(("Private_Clean:", "Private_Dirty:")))
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0
