"""config.gunicorn_workers, in a real gunicorn.

StreamingSyncWorker (the deployed default): a streamed response that lasts longer than the worker
timeout is delivered whole, where gunicorn's own sync worker is restarted in the middle of it; a
request that stays silent beyond the timeout is still stopped.

BalancedThreadWorker: a worker with a request waiting for a thread answers ``Connection: close`` so
the client's next request can go to another worker; a worker that keeps up keeps its connections
alive. gunicorn's own gthread worker, run the same way, keeps the connection (so the test can tell
the two apart).
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
STREAMING_SYNC = "config.gunicorn_workers.StreamingSyncWorker"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def serve():
    """Start gunicorn (one worker, one thread) on tests.gunicorn_app with a worker class."""
    procs: list[subprocess.Popen] = []

    def start(worker_class: str, timeout: int = 30) -> int:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--worker-class", worker_class, "--workers", "1", "--threads", "1",
             "--keep-alive", "5", "--timeout", str(timeout), "--bind", f"127.0.0.1:{port}", "tests.gunicorn_app:app"],
            cwd=ROOT, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        procs.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                # "Connection: close": the worker closes the probe's connection itself, so no end
                # of stream comes back later as one more request in flight (a thread worker reads
                # a kept-alive connection's end as a request) while a test counts
                conn.request("GET", "/?sleep=0", headers={"Connection": "close"})
                conn.getresponse().read()
                conn.close()
                time.sleep(0.1)
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


def _stream(port: int, lines: int, every: float) -> tuple[list[bytes], str]:
    """The lines of a streamed answer, and how it ended ("complete" or the error)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", f"/?stream={lines}&every={every}")
    response = conn.getresponse()
    received: list[bytes] = []
    try:
        while line := response.readline():
            received.append(line)
        ended = "complete"
    except (http.client.IncompleteRead, OSError) as exc:
        ended = type(exc).__name__
    conn.close()
    return received, ended


def test_a_streamed_answer_longer_than_the_timeout_is_delivered_whole(serve):
    port = serve(STREAMING_SYNC, timeout=2)
    lines, ended = _stream(port, lines=9, every=0.5)  # 4 s of streaming, timeout 2 s
    assert ended == "complete"
    assert [line.split(b" ", 1)[1] for line in lines] == [f"line {n}\n".encode() for n in range(9)]
    assert len({line.split(b" ", 1)[0] for line in lines}) == 1  # one worker, never restarted


def test_gunicorns_own_sync_worker_cuts_it_off(serve):
    port = serve("sync", timeout=2)
    lines, _ = _stream(port, lines=9, every=0.5)
    assert 0 < len(lines) < 9  # the arbiter stopped the silent worker; its answer ends early


def test_a_request_silent_beyond_the_timeout_is_still_stopped(serve):
    port = serve(STREAMING_SYNC, timeout=2)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/?sleep=5")  # no chunk at all for 5 s
    try:
        response = conn.getresponse()
        status = response.status
        response.read()
    except (http.client.RemoteDisconnected, ConnectionError):
        status = None  # dropped
    conn.close()
    assert status is None or status >= 500  # stopped: an error, never the app's answer


def test_the_deployed_config_uses_the_streaming_sync_worker(monkeypatch):
    monkeypatch.delenv("GUNICORN_WORKER_CLASS", raising=False)
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    settings: dict = {}
    exec(compile((ROOT / "deploy" / "gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), settings)
    assert settings["worker_class"] == STREAMING_SYNC
    assert settings["workers"] == max(2, os.cpu_count())  # one request at a time per core
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


# --- closing a connection: at once when nothing is left to read, gracefully otherwise ----------
def _serve_debug(worker_class: str):
    """gunicorn with one worker and a debug log, for the close tests: (port, proc)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--worker-class", worker_class, "--workers", "1",
         "--log-level", "debug", "--bind", f"127.0.0.1:{port}", "tests.gunicorn_app:app"],
        cwd=ROOT, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return port, proc
        except OSError:
            time.sleep(0.1)
    raise AssertionError("gunicorn did not start")


def _exchange(port: int, raw: bytes) -> bytes:
    """Send `raw`, read until the server's end of stream: everything the server sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _stop(proc: subprocess.Popen) -> str:
    proc.terminate()
    return proc.communicate(timeout=30)[1]


def test_a_request_read_whole_is_closed_at_once_and_its_answer_arrives_whole():
    port, proc = _serve_debug(STREAMING_SYNC)
    try:
        get = _exchange(port, b"GET /?sleep=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        post = _exchange(port, b"POST /?sleep=0 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    finally:
        log = _stop(proc)
    for answer in (get, post):  # the body is the worker's pid, whole
        assert answer.startswith(b"HTTP/1.1 200 OK") and answer.split(b"\r\n\r\n", 1)[1].isdigit()
    assert log.count("Closed at once: nothing left to read") == 2


def test_a_body_left_unread_or_a_request_behind_keeps_gunicorns_graceful_close():
    port, proc = _serve_debug(STREAMING_SYNC)
    body = b"x" * 200_000  # the app never reads it: the kernel holds the rest
    try:
        unread = _exchange(port, b"POST /?sleep=0 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        pipelined = _exchange(port, b"GET /?sleep=0 HTTP/1.1\r\nHost: x\r\n\r\nGET /?sleep=0 HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        log = _stop(proc)
    for answer in (unread, pipelined):  # answered whole, no reset
        assert answer.startswith(b"HTTP/1.1 200 OK") and answer.split(b"\r\n\r\n", 1)[1].isdigit()
    assert "Closed at once" not in log


def test_request_read_whole_asks_the_body_the_buffer_and_the_socket():
    import io

    from gunicorn.http.body import Body, ChunkedReader, LengthReader

    from config.gunicorn_workers import request_read_whole

    class Req:
        def __init__(self, reader, buffered=b""):
            self.unreader = type("U", (), {"buf": io.BytesIO(buffered)})()
            self.body = Body(reader)

    server, client = socket.socketpair()
    try:
        server.setblocking(False)
        assert request_read_whole(Req(LengthReader(None, 0)), server)
        assert not request_read_whole(Req(LengthReader(None, 10)), server)  # body not read to its end
        assert not request_read_whole(Req(LengthReader(None, 0), b"GET"), server)  # read ahead
        assert not request_read_whole(Req(ChunkedReader(None, None)), server)  # length unknown
        client.sendall(b"G")
        assert not request_read_whole(Req(LengthReader(None, 0)), server)  # a byte waits
        assert server.recv(1) == b"G"
        client.close()
        assert not request_read_whole(Req(LengthReader(None, 0)), server)  # the peer closed: gunicorn's way
    finally:
        server.close()
