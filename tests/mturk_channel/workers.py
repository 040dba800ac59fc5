"""A real Celery worker process (like tests.worker.celery_worker) that also knows the local
MTurk endpoint and hands back its process, so a test can kill it with SIGKILL."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kombu import pools

from tests.worker import BROKER, ROOT, _forget_connections, test_database_url


def _forget(app) -> None:
    """tests.worker's reset, plus kombu's global pool registries: force_close_all() closes the
    shared connection pool but leaves a producer pool that points at it cached in
    kombu.pools, so the next worker (or the next test using tests.worker) would fail with
    "Acquire on closed pool"."""
    _forget_connections(app)
    pools.reset()


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
def mturk_worker(mturk_url: str, log_dir: Path) -> Iterator[Worker]:
    from config.celery import app

    queue = f"test-mturk-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": BROKER,
        "CELERY_RESULT_BACKEND": BROKER,
        "MTURK_ENDPOINT": "local",
        "MTURK_LOCAL_URL": mturk_url,
        "MTURK_MAX_ATTEMPTS": "4",
    }
    log_path = log_dir / f"{queue}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", queue,
         "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    saved = {k: app.conf.get(k) for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=BROKER, result_backend=BROKER, task_always_eager=False)
    _forget(app)
    try:
        yield Worker(queue=queue, process=proc, log=log_path)
    finally:
        app.conf.update(**saved)
        _forget(app)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
