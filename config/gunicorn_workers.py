"""A gthread worker that hands a keep-alive connection back when it has more work than threads.

gunicorn's workers share one listening socket, and a kept-alive connection stays with the worker
that accepted it. Connections that arrive together (16 annotators, or nginx's upstream keepalive
pool) are not spread evenly: measured with 16 closed-loop annotators on 4 workers x 4 threads, one
worker held 7 connections and another 1, and the annotators on the crowded worker saved a third as
often as the one alone, which made the p95 latency three times the median. This worker answers
with ``Connection: close`` when, as the application starts its response, another request of this
worker is waiting for a thread. The client's next request then opens a new connection, and the
listening socket gives it to a worker that is waiting in accept (an idle worker's main thread wakes
first; a busy one waits for its GIL). While a worker keeps up, nothing changes: keep-alive stays on,
and idle kept-alive connections do not count. Measured after: 493-538 saves per annotator, p95 of
page views 41-43 ms instead of 59-71 (bench/README.md).
"""
from __future__ import annotations

from gunicorn.workers.gthread import ThreadWorker


class BalancedThreadWorker(ThreadWorker):
    """``worker_class = "config.gunicorn_workers.BalancedThreadWorker"``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # requests handed to the thread pool and not yet finished; only the main thread
        # (enqueue_req, finish_request) changes it, pool threads only read it
        self.in_flight = 0

    def enqueue_req(self, conn) -> None:
        self.in_flight += 1
        super().enqueue_req(conn)

    def finish_request(self, conn, fs) -> None:
        self.in_flight -= 1
        super().finish_request(conn, fs)

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
