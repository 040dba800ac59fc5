"""A WSGI app for tests/test_gunicorn_worker.py: answers with the worker's pid after
sleeping ``?sleep=`` seconds (a request that holds a thread); with ``?stream=N&every=S`` it
streams N lines, S seconds apart, as Django's StreamingHttpResponse does (an export)."""
from __future__ import annotations

import os
import time
from urllib.parse import parse_qs


class Streamed:
    """An iterable body marked as Django marks a StreamingHttpResponse."""

    streaming = True

    def __init__(self, lines: int, every: float):
        self.lines, self.every = lines, every

    def __iter__(self):
        for n in range(self.lines):
            if n:
                time.sleep(self.every)
            yield f"{os.getpid()} line {n}\n".encode()


def app(environ, start_response):
    query = parse_qs(environ.get("QUERY_STRING", ""))
    if "stream" in query:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return Streamed(int(query["stream"][0]), float(query.get("every", ["0"])[0]))
    seconds = float(query.get("sleep", ["0"])[0])
    time.sleep(min(seconds, 5.0))
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
