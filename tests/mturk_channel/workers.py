"""A real Celery worker process (tests.worker) that also knows the local MTurk endpoint; the
yielded Worker can be killed with SIGKILL mid-task."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.worker import Worker, worker_process

__all__ = ["Worker", "mturk_worker"]


@contextmanager
def mturk_worker(mturk_url: str, log_dir: Path) -> Iterator[Worker]:
    env = {"MTURK_ENDPOINT": "local", "MTURK_LOCAL_URL": mturk_url, "MTURK_MAX_ATTEMPTS": "4"}
    with worker_process(extra_env=env, log_dir=log_dir) as worker:
        yield worker
