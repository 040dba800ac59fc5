"""bench/http_driver.py, the benchmark's load generator: responses framed by Content-Length, by
chunks or by the end of the stream are read whole, kept-alive connections are reused until the
server says close, a connection the server dropped between requests is opened again once, a
paced request waits for its time, and a request nobody answers fails with a timeout."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from http_driver import Driver, Reply, Request, parse  # noqa: E402


class RawServer:
    """A socket server whose answers are given as raw bytes per path, so every framing can be
    sent exactly; it counts the connections it accepted."""

    def __init__(self, answers: dict[str, bytes], *, drop_after_first: bool = False):
        self.answers, self.drop_after_first = answers, drop_after_first
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn: socket.socket) -> None:
        buf, served = b"", 0
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                length = next(
                    (int(v) for k, _, v in (x.partition(": ") for x in lines[1:]) if k.lower() == "content-length"), 0
                )
                while len(buf) < length:
                    buf += conn.recv(65536)
                body, buf = buf[:length], buf[length:]
                path = lines[0].split()[1]
                if self.drop_after_first and served == 1:
                    return  # a kept-alive connection closed by the server before answering
                answer = self.answers[path]
                if path == "/echo":
                    answer = answer.replace(b"LEN", str(len(body)).encode()).replace(b"BODY", body)
                if answer == b"never":
                    time.sleep(5)
                    return
                conn.sendall(answer)
                served += 1
                if b"Connection: close" in answer.split(b"\r\n\r\n")[0]:
                    return

    def close(self) -> None:
        self.sock.close()


ANSWERS = {
    "/length": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\n\r\nhello",
    "/chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n",
    "/close": b"HTTP/1.1 302 Found\r\nLocation: /x\r\nConnection: close\r\n\r\nuntil the end",
    "/echo": b"HTTP/1.1 200 OK\r\nContent-Length: LEN\r\n\r\nBODY",
    "/never": b"never",
}


def run_clients(port: int, *clients, until: float = 10.0, timeout: float = 60.0):
    return Driver("127.0.0.1", port, timeout=timeout).run(list(clients), until=time.monotonic() + until)


def test_every_framing_is_read_whole_and_connections_are_kept_until_close():
    server = RawServer(ANSWERS)
    replies: list[Reply] = []

    def client():
        for path in ("/length", "/chunked", "/length", "/close", "/length"):
            replies.append((yield Request("GET", path, {})))
        replies.append((yield Request("POST", "/echo", {}, body=b"x=1&y=2")))

    assert run_clients(server.port, client()) == []
    assert [r.body for r in replies] == [b"hello", b"abcdefg", b"hello", b"until the end", b"hello", b"x=1&y=2"]
    assert [r.status for r in replies] == [200, 200, 200, 302, 200, 200]
    assert replies[0].headers_all("set-cookie") == ["a=1; Path=/", "b=2"]
    assert replies[3].header("Location") == "/x"
    assert server.connections == 2  # one until "Connection: close", then a new one
    assert all(r.finished >= r.started for r in replies)
    server.close()


def test_a_connection_dropped_between_requests_is_opened_again_once():
    server = RawServer(ANSWERS, drop_after_first=True)
    replies: list[Reply] = []

    def client():
        replies.append((yield Request("GET", "/length", {})))
        replies.append((yield Request("GET", "/length", {})))

    assert run_clients(server.port, client()) == []
    assert [r.body for r in replies] == [b"hello", b"hello"]
    assert server.connections == 2
    server.close()


def test_a_spawned_client_runs_beside_its_parent_and_is_waited_for():
    server = RawServer(ANSWERS)
    driver = Driver("127.0.0.1", server.port)
    events: list[str] = []

    def child():
        reply = yield Request("GET", "/chunked", {})
        events.append(f"child {reply.body.decode()}")

    def parent():
        driver.spawn(child())  # its request goes out before the parent's
        reply = yield Request("GET", "/never", {}, due=time.monotonic() + 0.2)
        events.append(f"parent {reply.status}")

    hung = driver.run([parent()], until=time.monotonic() + 2)
    assert events == ["child abcdefg"]  # the parent's request is never answered: it is still running
    assert hung == [0]
    server.close()


def test_a_paced_request_waits_for_its_time():
    server = RawServer(ANSWERS)
    due = time.monotonic() + 0.3
    replies: list[Reply] = []

    def client():
        replies.append((yield Request("GET", "/length", {}, due=due)))

    run_clients(server.port, client())
    assert replies[0].started >= due
    server.close()


def test_an_unanswered_request_fails_with_a_timeout_and_a_refused_one_with_an_error():
    server = RawServer(ANSWERS)
    failures: list[BaseException] = []

    def client(path: str):
        try:
            yield Request("GET", path, {})
        except (OSError, TimeoutError) as exc:
            failures.append(exc)

    assert run_clients(server.port, client("/never"), timeout=0.5) == []
    server.close()
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    run_clients(free, client("/length"))
    assert isinstance(failures[0], TimeoutError)
    assert isinstance(failures[1], ConnectionRefusedError)


def test_a_client_still_running_at_the_deadline_is_reported():
    server = RawServer(ANSWERS)

    def client():
        while True:
            yield Request("GET", "/length", {}, due=time.monotonic() + 0.05)

    assert run_clients(server.port, client(), until=0.3) == [0]
    server.close()


@pytest.mark.parametrize("cut", [10, 40, 60])
def test_parse_waits_for_more_bytes_and_names_a_truncated_answer(cut):
    raw = ANSWERS["/chunked"]
    assert parse(raw[:cut], method="GET", eof=False) is None
    with pytest.raises(ConnectionError):
        parse(raw[:cut], method="GET", eof=True)
    assert parse(raw, method="GET", eof=False) == (200, [("Transfer-Encoding", "chunked")], b"abcdefg", False)
