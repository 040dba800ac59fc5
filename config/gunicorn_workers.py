"""gunicorn workers: the deployed one, and the thread worker it replaced.

`StreamingSyncWorker` (deploy/gunicorn.conf.py's default) is gunicorn's sync worker: one request at
a time per process, and a process takes a connection from the shared listening socket only when it
is free, so requests queue once, in the kernel, and go to whichever worker frees first. The app is
CPU-bound (a page costs about 2 ms of Python and 0-2 database round trips), so threads add nothing
but GIL hand-offs: with 16 closed-loop annotators on 2 cores, 2 sync workers served 561-595 saves/s
at p95 30-34 ms on SQLite, where 4 gthread workers x 4 threads served 439-482 at p95 58-66 ms
(server CPU per request 2.4-2.7 ms against 3.2-3.5). The sync worker has one gap, which this class
fills: the arbiter restarts a worker that has not reported for `timeout` seconds, and a sync
worker reports only between requests, so a long streamed response (an export of millions of rows)
would be cut off. This one reports between chunks of a streamed response, at most once a second;
a response that makes no progress for `timeout` seconds is still stopped.

It also closes a connection at once when nothing of the client's is left to read. gunicorn (27)
closes every connection gracefully: it half-closes, then waits up to 2 s for the client to close
its side, so that unread request bytes cannot make the kernel answer with a reset that destroys
the end of the response (RFC 9112, 9.6). A sync worker does nothing else while it waits: measured
with 16 annotators (bench_annotate, PostgreSQL), 256 us a request, 6 % of each worker's time, for
the load generator's end of the connection, and one network round trip per request for a browser
that talks to the worker directly. When the request's body was read to its declared end, gunicorn
holds no bytes read ahead and the socket has none waiting, there is nothing to reset: the worker
closes and takes the next connection. Otherwise (a body left unread, chunked, TLS) it lingers as
gunicorn does.

`BalancedThreadWorker` is gthread, except that it hands a keep-alive connection back when it has
more work than threads. gunicorn's workers share one listening socket, and a kept-alive connection
stays with the worker that accepted it. Connections that arrive together (16 annotators, or nginx's
upstream keepalive pool) are not spread evenly: measured with 16 closed-loop annotators on 4 workers
x 4 threads, one worker held 7 connections and another 1, and the annotators on the crowded worker
saved a third as often as the one alone, which made the p95 latency three times the median. This
worker answers with ``Connection: close`` when, as the application starts its response, another
request of this worker is waiting for a thread. The client's next request then opens a new
connection, and the listening socket gives it to a worker that is waiting in accept (an idle
worker's main thread wakes first; a busy one waits for its GIL). While a worker keeps up, nothing
changes: keep-alive stays on, and idle kept-alive connections do not count. Measured after: 493-538
saves per annotator, p95 of page views 41-43 ms instead of 59-71 (bench/README.md). It suits
servers that face slow clients without a buffering proxy, which a sync worker must not.
"""
from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable, Iterable, Iterator

from gunicorn.http.body import LengthReader
from gunicorn.workers.gthread import ThreadWorker
from gunicorn.workers.sync import SyncWorker

#: seconds between two reports to the arbiter while a streamed response is written
HEARTBEAT_EVERY = 1.0


class _ReportingBody:
    """A streamed WSGI body that calls `report` between its chunks, at most every `every` s."""

    def __init__(self, body: Iterable[bytes], report: Callable[[], None], every: float = HEARTBEAT_EVERY):
        self.body, self.report, self.every = body, report, every

    def __iter__(self) -> Iterator[bytes]:
        last = time.monotonic()
        for chunk in self.body:
            now = time.monotonic()
            if now - last >= self.every:
                self.report()
                last = now
            yield chunk

    def close(self) -> None:
        close = getattr(self.body, "close", None)
        if close is not None:
            close()


class StreamingSyncWorker(SyncWorker):
    """``worker_class = "config.gunicorn_workers.StreamingSyncWorker"``."""

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app = self.wsgi

        def reporting(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
            body = app(environ, start_response)
            # only streamed bodies (Django's StreamingHttpResponse): a file goes out through
            # sendfile as gunicorn's file wrapper, and an ordinary response is one chunk
            if getattr(body, "streaming", False) and not isinstance(body, environ["wsgi.file_wrapper"]):
                return _ReportingBody(body, self.notify)
            return body

        self.wsgi = reporting

    def handle_request(self, listener, req, client, addr) -> None:
        super().handle_request(listener, req, client, addr)
        # returned normally: the response is written; gunicorn's handle() then closes gracefully,
        # which after this close finds the socket closed and returns at once
        if not self.cfg.is_ssl and request_read_whole(req, client):
            client.close()
            self.log.debug("Closed at once: nothing left to read")


def request_read_whole(req: Any, client: socket.socket) -> bool:
    """Whether nothing of the client's is left to read: its body read to the declared length
    (none counts as 0), no byte read ahead in gunicorn's buffer, none waiting in the socket."""
    reader = getattr(getattr(req, "body", None), "reader", None)
    if not isinstance(reader, LengthReader) or reader.length:
        return False
    if req.unreader.buf.getbuffer().nbytes:
        return False
    try:
        client.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return True  # nothing waiting, and the client has not closed its side
    except OSError:
        return False
    # a byte waits (a request sent behind this one: drain it), or the client closed already (b"",
    # the graceful close then returns at once)
    return False


class BalancedThreadWorker(ThreadWorker):
    """``worker_class = "config.gunicorn_workers.BalancedThreadWorker"``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # requests handed to the thread pool and not yet handled: counted up by the main thread
        # (enqueue_req) and down by the pool thread that handled the request, as it finishes.
        # Not in finish_request: gunicorn runs that later, on the main thread, and the pool
        # thread may meanwhile start the next request and still count the finished one
        self.in_flight = 0
        self._counting = threading.Lock()

    def enqueue_req(self, conn) -> None:
        with self._counting:
            self.in_flight += 1
        super().enqueue_req(conn)

    def handle(self, conn):
        try:
            return super().handle(conn)
        finally:
            with self._counting:
                self.in_flight -= 1

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app, threads = self.wsgi, self.cfg.threads

        def balanced(environ, start_response):
            def start(status, headers, exc_info=None):
                # decided when the answer is ready (its headers are not sent yet): a request
                # that arrived meanwhile and waits for a thread sends this client elsewhere
                if self.in_flight > threads:
                    start_response.__self__.force_close()  # gunicorn's Response
                return start_response(status, headers, exc_info)

            return app(environ, start)

        self.wsgi = balanced
