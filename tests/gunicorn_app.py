"""A WSGI app for tests/test_gunicorn_worker.py: answers with the worker's pid after
sleeping ``?sleep=`` seconds (a request that holds a thread)."""
from __future__ import annotations

import os
import time
from urllib.parse import parse_qs


def app(environ, start_response):
    seconds = float(parse_qs(environ.get("QUERY_STRING", "")).get("sleep", ["0"])[0])
    time.sleep(min(seconds, 5.0))
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
