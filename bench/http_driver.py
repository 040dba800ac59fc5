"""Many HTTP/1.1 clients driven by one thread: the load generator of bench_annotate.py.

The load generator runs on the same 2 cores as the server it measures, so its own CPU is taken
from the server. Sixteen `http.client` threads cost about 0.5 ms of CPU a request (the threads
hand the GIL to each other at every socket call, and http.client parses headers through the
email package); one thread driving non-blocking sockets through epoll costs a fraction of that.

A client is a generator: it yields a `Request`, and is sent the `Reply` (or has the failure
thrown in, an OSError or TimeoutError) when the answer is complete. Each client has its own
connection, kept alive until the server answers `Connection: close` (then the next request
opens a new one), as a browser tab does. A request with `due` is not sent before that time
(a paced load: the wait is the client's, not the server's). A running client can start another
with `Driver.spawn` (a second tab, a second click on the same button): it runs beside the others.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import selectors
import socket
import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field

CRLF2 = b"\r\n\r\n"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    due: float | None = None  # monotonic time before which it is not sent


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    started: float  # when the request was begun (connection included), monotonic
    finished: float

    def header(self, name: str, default: str = "") -> str:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), default)

    def headers_all(self, name: str) -> list[str]:
        name = name.lower()
        return [v for k, v in self.headers if k.lower() == name]


Client = Generator[Request, Reply, None]


@dataclass
class _Slot:
    """One client: its generator, connection and the request in flight."""

    gen: Client
    sock: socket.socket | None = None
    reused: bool = False  # the connection already carried a request (the server may have closed it)
    request: Request | None = None
    out: bytes = b""
    inbuf: bytearray = field(default_factory=bytearray)
    started: float = 0.0
    connecting: bool = False
    retried: bool = False
    done: bool = False


def encode(req: Request, host: str) -> bytes:
    lines = [f"{req.method} {req.path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{k}: {v}" for k, v in req.headers.items() if k.lower() != "host"]
    if req.body or req.method == "POST":
        lines.append(f"Content-Length: {len(req.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + req.body


def parse(buf: bytes | bytearray, *, method: str, eof: bool) -> tuple[int, list[tuple[str, str]], bytes, bool] | None:
    """A complete response in `buf`: (status, headers, body, close after it), or None while
    more bytes are needed. Bodies by Content-Length, chunked, or up to the end of the stream."""
    end = buf.find(CRLF2)
    if end < 0:
        if eof:
            raise ConnectionError("connection closed before the response's headers")
        return None
    head = bytes(buf[:end]).decode("latin-1").split("\r\n")
    version, _, rest = head[0].partition(" ")
    status = int(rest[:3])
    headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in head[1:])]
    lower = {k.lower(): v for k, v in headers}
    close = lower.get("connection", "").lower() == "close" or (
        version == "HTTP/1.0" and lower.get("connection", "").lower() != "keep-alive"
    )
    start = end + 4
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return status, headers, b"", close
    if "chunked" in lower.get("transfer-encoding", "").lower():
        body, pos = bytearray(), start
        while True:
            line_end = buf.find(b"\r\n", pos)
            if line_end < 0:
                break
            size = int(bytes(buf[pos:line_end]).split(b";")[0], 16)
            if size == 0:
                trailer_end = buf.find(CRLF2, line_end)  # the last chunk, trailers, empty line
                if trailer_end < 0 and buf[line_end : line_end + 4] != CRLF2:
                    break
                return status, headers, bytes(body), close
            if len(buf) < line_end + 2 + size + 2:
                break
            body += buf[line_end + 2 : line_end + 2 + size]
            pos = line_end + 2 + size + 2
        if eof:
            raise ConnectionError("connection closed inside a chunked body")
        return None
    if "content-length" in lower:
        n = int(lower["content-length"])
        if len(buf) - start >= n:
            return status, headers, bytes(buf[start : start + n]), close
        if eof:
            raise ConnectionError(f"connection closed after {len(buf) - start} of {n} body bytes")
        return None
    return (status, headers, bytes(buf[start:]), True) if eof else None


class Driver:
    """Runs clients against one host:port until they finish or `until` (monotonic) passes."""

    def __init__(self, host: str, port: int, *, timeout: float = 60.0):
        self.addr = (host, port)
        self.host_header = f"{host}:{port}"
        self.timeout = timeout
        self.sel = selectors.DefaultSelector()
        self.timers: list[tuple[float, int, _Slot]] = []
        self.order = itertools.count()
        self.slots: list[_Slot] = []

    def spawn(self, client: Client) -> None:
        """Start another client during `run` (called from inside a running one): its first
        request goes out at once, and `run` waits for it as for the others."""
        self.slots.append(_Slot(client))
        self._advance(self.slots[-1], None)

    def run(self, clients: Iterable[Client], until: float) -> list[int]:
        """The indexes of the clients still running when `until` came (hung)."""
        for gen in clients:
            self.spawn(gen)
        slots = self.slots  # grows as clients spawn others
        while any(not s.done for s in slots):
            now = time.monotonic()
            if now >= until:
                break
            wait = min(until, now + 0.5)
            if self.timers:
                wait = min(wait, self.timers[0][0])
            for key, _events in self.sel.select(max(0.0, wait - now)):
                self._ready(key.data)
            now = time.monotonic()
            while self.timers and self.timers[0][0] <= now:
                self._begin(heapq.heappop(self.timers)[2])
            for slot in slots:  # a request the server never answers
                if slot.request is not None and not slot.done and slot.started and now - slot.started > self.timeout:
                    self._fail(slot, TimeoutError(f"no answer in {self.timeout:g} s"))
        for slot in slots:
            self._close(slot)
        self.sel.close()
        return [i for i, s in enumerate(slots) if not s.done]

    # --- a client's steps ---------------------------------------------------------
    def _advance(self, slot: _Slot, reply: Reply | BaseException | None) -> None:
        try:
            if reply is None:
                req = next(slot.gen)
            elif isinstance(reply, BaseException):
                req = slot.gen.throw(reply)
            else:
                req = slot.gen.send(reply)
        except StopIteration:
            slot.done, slot.request = True, None
            self._close(slot)
            return
        slot.request, slot.retried, slot.started = req, False, 0.0
        if req.due is not None and req.due > time.monotonic():
            heapq.heappush(self.timers, (req.due, next(self.order), slot))
        else:
            self._begin(slot)

    def _begin(self, slot: _Slot) -> None:
        slot.started = time.monotonic()
        slot.out = encode(slot.request, self.host_header)
        slot.inbuf.clear()
        if slot.sock is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)
            code = sock.connect_ex(self.addr)
            if code not in (0, errno.EINPROGRESS):
                sock.close()
                return self._fail(slot, ConnectionRefusedError(code, errno.errorcode.get(code, str(code))))
            slot.sock, slot.reused, slot.connecting = sock, False, True
            self.sel.register(sock, selectors.EVENT_WRITE, slot)
            return
        self._send(slot)

    def _ready(self, slot: _Slot) -> None:
        if slot.connecting:
            code = slot.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if code:
                return self._fail(slot, ConnectionRefusedError(code, errno.errorcode.get(code, str(code))))
            slot.connecting = False
            return self._send(slot)
        if slot.out:
            return self._send(slot)
        self._receive(slot)

    def _send(self, slot: _Slot) -> None:
        try:
            n = slot.sock.send(slot.out)
        except BlockingIOError:
            n = 0
        except OSError as exc:
            return self._lost(slot, exc)
        slot.out = slot.out[n:]
        self._watch(slot, selectors.EVENT_WRITE if slot.out else selectors.EVENT_READ)

    def _receive(self, slot: _Slot) -> None:
        try:
            data = slot.sock.recv(262144)
        except BlockingIOError:
            return
        except OSError as exc:
            return self._lost(slot, exc)
        if data:
            slot.inbuf += data
        try:
            done = parse(slot.inbuf, method=slot.request.method, eof=not data)
        except ConnectionError as exc:
            return self._lost(slot, exc)
        if done is None:
            return
        status, headers, body, close = done
        reply = Reply(status, headers, body, slot.started, time.monotonic())
        slot.reused = True
        if close:
            self._close(slot)
        self._advance(slot, reply)

    def _lost(self, slot: _Slot, exc: BaseException) -> None:
        """A kept-alive connection that the server closed before answering (a recycled worker,
        the keep-alive timeout) is opened again once, as browsers do; anything else fails."""
        retry = slot.reused and not slot.inbuf and not slot.retried
        self._close(slot)
        if retry:
            slot.retried = True
            started = slot.started
            self._begin(slot)
            slot.started = started
            return
        self._fail(slot, exc)

    def _fail(self, slot: _Slot, exc: BaseException) -> None:
        self._close(slot)
        self._advance(slot, exc)

    # --- sockets -----------------------------------------------------------------
    def _watch(self, slot: _Slot, events: int) -> None:
        key = self.sel.get_map().get(slot.sock)
        if key is None:
            self.sel.register(slot.sock, events, slot)
        elif key.events != events:
            self.sel.modify(slot.sock, events, slot)

    def _close(self, slot: _Slot) -> None:
        if slot.sock is not None:
            if slot.sock in self.sel.get_map():
                self.sel.unregister(slot.sock)
            slot.sock.close()
            slot.sock, slot.connecting = None, False
