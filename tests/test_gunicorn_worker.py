"""config.gunicorn_workers.BalancedThreadWorker, in a real gunicorn: a worker with a request waiting
for a thread answers ``Connection: close`` so the client's next request can go to another worker;
a worker that keeps up keeps its connections alive. gunicorn's own gthread worker, run the same
way, keeps the connection (so the test can tell the two apart). The deployed config uses it.
"""
from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BALANCED = "config.gunicorn_workers.BalancedThreadWorker"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def serve():
    """Start gunicorn (one worker, one thread) on tests.gunicorn_app with a worker class."""
    procs: list[subprocess.Popen] = []

    def start(worker_class: str) -> int:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--worker-class", worker_class, "--workers", "1", "--threads", "1",
             "--keep-alive", "5", "--bind", f"127.0.0.1:{port}", "tests.gunicorn_app:app"],
            cwd=ROOT, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        procs.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/?sleep=0")
                conn.getresponse().read()
                conn.close()
                # the worker reads the probe's end of stream as one more request (it counts as in
                # flight for a moment): let it pass before a test counts
                time.sleep(0.3)
                return port
            except OSError:
                time.sleep(0.1)
        raise AssertionError("gunicorn did not start")

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=30)


def _get(port: int, path: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    return conn, response, response.read()


def _slow_then_queued(port: int) -> tuple[str, str]:
    """A slow request, and a second connection's request queued behind it (the worker's only
    thread is busy): the Connection header of each answer."""
    result: dict[str, str] = {}

    def slow() -> None:
        conn, response, _ = _get(port, "/?sleep=0.8")
        result["slow"] = response.getheader("Connection", "")
        conn.close()

    first = threading.Thread(target=slow)
    first.start()
    time.sleep(0.3)  # the slow request holds the thread; this one waits for it
    conn, response, _ = _get(port, "/?sleep=0")
    result["queued"] = response.getheader("Connection", "")
    conn.close()
    first.join()
    return result["slow"], result["queued"]


def test_a_worker_with_a_queued_request_closes_the_connection_it_answers(serve):
    port = serve(BALANCED)
    slow, queued = _slow_then_queued(port)
    assert slow.lower() == "close"  # another request waited for this worker's thread
    assert queued.lower() == "keep-alive"  # nothing waited behind it


def test_gunicorns_own_gthread_worker_keeps_it(serve):
    port = serve("gthread")
    slow, queued = _slow_then_queued(port)
    assert slow.lower() == "keep-alive"
    assert queued.lower() == "keep-alive"


def test_a_worker_that_keeps_up_keeps_connections_alive(serve):
    port = serve(BALANCED)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    pids = set()
    for _ in range(20):
        conn.request("GET", "/?sleep=0")
        response = conn.getresponse()
        pids.add(response.read())
        assert response.getheader("Connection", "").lower() == "keep-alive"
    local = conn.sock.getsockname()
    conn.request("GET", "/?sleep=0")
    conn.getresponse().read()
    assert conn.sock.getsockname() == local  # still the first connection
    conn.close()
    assert len(pids) == 1


def test_the_deployed_config_uses_it(monkeypatch):
    monkeypatch.delenv("GUNICORN_WORKER_CLASS", raising=False)
    settings: dict = {}
    exec(compile((ROOT / "deploy" / "gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), settings)
    assert settings["worker_class"] == BALANCED
    worker_class = settings["worker_class"]
    module, _, name = worker_class.rpartition(".")
    assert getattr(__import__(module, fromlist=[name]), name).__name__ == name


def test_the_deployed_config_freezes_what_the_app_loaded():
    import gc

    settings: dict = {}
    exec(compile((ROOT / "deploy" / "gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), settings)
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        settings["post_worker_init"](None)
        assert gc.get_freeze_count() > 1000  # this process's objects: out of the collector's way
    finally:
        gc.unfreeze()
