"""A real Celery worker process on the local broker, sharing the test database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import kombu.pools
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")


def broker_reachable(url: str = BROKER) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=1):
            return True
    except OSError:
        return False


def test_database_url() -> str:
    """The URL of the database the tests are using right now (test_<name> or the test file)."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    user = s.get("USER") or "postgres"
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


def _forget_connections(app) -> None:
    """Celery caches its broker connection pool and result backend on first use; a test before
    may have made them with the default settings, so drop them whenever the URLs change."""
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu.pools.reset()  # kombu's shared producer pools still point at the closed pool


@dataclass
class Worker:
    queue: str
    process: subprocess.Popen
    log: Path

    def kill(self) -> None:
        """SIGKILL: no cleanup, no acknowledgement, like a machine that lost power."""
        self.process.kill()
        self.process.wait(timeout=10)


@contextmanager
def worker_process(*, extra_env: dict[str, str] | None = None, log_dir: Path = ROOT) -> Iterator[Worker]:
    """Start `celery worker` on a queue of its own (with `extra_env`); yield it; stop it."""
    from config.celery import app

    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": BROKER,
        "CELERY_RESULT_BACKEND": BROKER,
        **(extra_env or {}),
    }
    shared = f".celery-test-worker{os.environ.get('PYTEST_XDIST_WORKER', '')}.log"  # one per test process
    log_path = log_dir / (shared if log_dir == ROOT else f"{queue}.log")
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "info",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    saved = {k: app.conf.get(k) for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=BROKER, result_backend=BROKER, task_always_eager=False)
    _forget_connections(app)
    try:
        yield Worker(queue=queue, process=proc, log=log_path)
    finally:
        app.conf.update(**saved)
        _forget_connections(app)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()


@contextmanager
def celery_worker() -> Iterator[str]:
    """Start `celery worker` on a queue of its own; yield the queue name; stop the worker."""
    with worker_process() as worker:
        yield worker.queue
