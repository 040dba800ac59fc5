"""The local MTurk-compatible endpoint over HTTP (stdlib ``http.server``, one thread per
connection).

    POST /          the requester API: X-Amz-Target MTurkRequesterServiceV20170117.<Operation>,
                    JSON in and out, MTurk's error shapes (boto3 talks to it via endpoint_url)
    /worker/, /mturk/...   the worker site (``site.py``)
    /_local/...     the admin API for tests and demos (``admin.py``); no authentication, so
                    bind to 127.0.0.1 (the default)
"""
from __future__ import annotations

import json
import logging
import socket
import threading
import time
import uuid
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from . import (
    admin,
    ops_work,  # noqa: F401  (registers its operations)
    site,
)
from .errors import ApiError, request_error
from .faults import Faults
from .ops_hits import OPERATIONS
from .store import Store
from .validation import validate
from .work import WORKER_ID

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
MAX_BODY = 2 * 1024 * 1024
log = logging.getLogger(__name__)


class LocalMTurk:
    """The endpoint without the HTTP: state, faults, and what each request gets back."""

    def __init__(self, store: Store, *, public_url: str = "", faults: Faults | None = None) -> None:
        self.store = store
        self.faults = faults or Faults()
        self.public_url = public_url.rstrip("/")

    def api(self, target: str | None, raw: bytes) -> tuple[int, dict[str, Any]]:
        operation = (target or "")[len(TARGET_PREFIX):] if (target or "").startswith(TARGET_PREFIX) else ""
        params: Any = None
        try:
            if not operation:
                raise ApiError("UnknownOperationException", f"Unknown X-Amz-Target {target!r}")
            try:
                params = json.loads(raw or b"{}")
            except ValueError:
                raise ApiError("SerializationException", "The request body is not JSON") from None
            status, body = 200, self._run(operation, params)
        except ApiError as exc:
            status, body = exc.status, exc.body()
        except Exception:  # a bug here must look like MTurk's own fault, not kill the thread
            log.exception("local MTurk endpoint failed on %s", operation)
            exc = ApiError("ServiceFault", "Internal error in the local MTurk endpoint")
            status, body = exc.status, exc.body()
        self.faults.record(operation, params, status, body.get("__type", "").rpartition("#")[2])
        return status, body

    def _run(self, operation: str, params: Any) -> dict[str, Any]:
        fault = self.faults.take(operation)
        if fault and fault.delay_seconds:
            time.sleep(fault.delay_seconds)
        error = fault.api_error() if fault else None
        if error and not fault.after_effect:
            raise error
        validate(operation, params)
        handler = OPERATIONS.get(operation)
        if handler is None:
            raise request_error("AWS.MechanicalTurk.UnsupportedOperation",
                                f"{operation} is not implemented by the local MTurk endpoint")
        self.store.sweep()
        result = handler(self.store, params)
        if error:
            raise error
        return result


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "LocalMTurk/1.0"
    disable_nagle_algorithm = True  # headers and body go out as two writes; no 40 ms stalls
    app: LocalMTurk  # set on the subclass made per server

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _dispatch(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            return self._send(413, b"request body too large", "text/plain")
        raw = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        if url.path == "/" and method == "POST" and self.headers.get("X-Amz-Target") is not None:
            status, body = self.app.api(self.headers.get("X-Amz-Target"), raw)
            return self._send(status, json.dumps(body).encode(), "application/x-amz-json-1.1",
                              [("x-amzn-RequestId", str(uuid.uuid4()))])
        if url.path.startswith("/_local/"):
            status, body = admin.handle(self.app, method, url.path, query, raw)
            return self._send(status, json.dumps(body, default=str).encode(), "application/json")
        if url.path == "/":
            return self._send(303, b"", "text/plain", [("Location", "/worker/")])
        form = parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True) if raw else []
        page = site.handle(self.app.store, method, url.path, query, form, self._worker(),
                           self.app.public_url)
        self._send(page.status, page.body.encode(), "text/html; charset=utf-8", page.headers)

    def _worker(self) -> str | None:
        try:
            morsel = SimpleCookie(self.headers.get("Cookie") or "").get(site.COOKIE)
        except CookieError:
            return None
        value = morsel.value if morsel else ""
        return value if WORKER_ID.match(value) else None

    def _send(self, status: int, body: bytes, content_type: str,
              headers: list[tuple[str, str]] = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    """ThreadingHTTPServer that ends its connections' threads when it stops: boto3 keeps its
    connections alive, and each one's thread would wait for a next request forever (a process
    that later forks, such as an export, must have no stray threads)."""

    daemon_threads = False
    block_on_close = True  # server_close() joins the connections' threads

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request, client_address) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        with self._open_lock:
            connections = list(self._open)
        for sock in connections:  # a thread waiting for its next request reads the end
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        super().server_close()


class LocalMTurkServer:
    """The endpoint on ``host:port`` (port 0 picks a free one), in a background thread.

        with LocalMTurkServer(db=":memory:", balance="100.00") as server:
            client = make_client("local", local_url=server.url)
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, db: str = ":memory:",
                 balance: str = "10000.00", public_url: str | None = None,
                 require_https: bool = False) -> None:
        self.store = Store(db, balance=balance, require_https=require_https)
        handler = type("Handler", (_Handler,), {})
        self.httpd = _Server((host, port), handler)
        bound_host, bound_port = self.httpd.server_address[:2]
        self.url = public_url.rstrip("/") if public_url else f"http://{bound_host}:{bound_port}"
        self.app = handler.app = LocalMTurk(self.store, public_url=self.url)
        self.faults = self.app.faults
        self._thread: threading.Thread | None = None

    def start(self) -> "LocalMTurkServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="local-mturk",
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.httpd.server_close()
        self.store.close()

    def __enter__(self) -> "LocalMTurkServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
