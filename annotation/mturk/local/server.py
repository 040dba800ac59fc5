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
import time
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from annotation.local_endpoint import EndpointHandler, LocalServer

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
log = logging.getLogger(__name__)


class LocalMTurk:
    """The endpoint without the HTTP: state, faults, and what each request gets back."""

    def __init__(self, store: Store, *, public_url: str = "", faults: Faults | None = None) -> None:
        self.store = store
        self.faults = faults or Faults()
        self.public_url = public_url.rstrip("/")

    def api(self, target: str | None, raw: bytes) -> tuple[int, dict[str, Any]]:
        operation = (target or "")[len(TARGET_PREFIX) :] if (target or "").startswith(TARGET_PREFIX) else ""
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
            fault = ApiError("ServiceFault", "Internal error in the local MTurk endpoint")
            status, body = fault.status, fault.body()
        self.faults.record(operation, params=params, status=status, error=body.get("__type", "").rpartition("#")[2])
        return status, body

    def _run(self, operation: str, params: Any) -> dict[str, Any]:
        fault = self.faults.take(operation)
        if fault and fault.delay_seconds:
            time.sleep(fault.delay_seconds)
        error = fault.api_error() if fault else None
        if error and fault and not fault.after_effect:
            raise error
        validate(operation, params)
        handler = OPERATIONS.get(operation)
        if handler is None:
            raise request_error(
                "AWS.MechanicalTurk.UnsupportedOperation", f"{operation} is not implemented by the local MTurk endpoint"
            )
        self.store.sweep()
        result = handler(self.store, params)
        if error:
            raise error
        return result


class _Handler(EndpointHandler):
    server_version = "LocalMTurk/1.0"
    app: LocalMTurk  # set on the subclass made per server

    def dispatch(self, method: str, raw: bytes) -> None:
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        if url.path == "/" and method == "POST" and self.headers.get("X-Amz-Target") is not None:
            status, body = self.app.api(self.headers.get("X-Amz-Target"), raw)
            return self.send(
                status,
                json.dumps(body).encode(),
                "application/x-amz-json-1.1",
                [("x-amzn-RequestId", str(uuid.uuid4()))],
            )
        if url.path.startswith("/_local/"):
            status, body = admin.handle(self.app, method, url.path, query, raw)
            return self.send(status, json.dumps(body, default=str).encode(), "application/json")
        if url.path == "/":
            return self.send(303, b"", "text/plain", [("Location", "/worker/")])
        form = parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True) if raw else []
        worker = self.cookie(site.COOKIE)
        page = site.handle(
            self.app.store,
            method,
            url.path,
            query,
            form,
            worker if WORKER_ID.match(worker) else None,
            self.app.public_url,
        )
        self.send(page.status, page.body.encode(), "text/html; charset=utf-8", page.headers)


class LocalMTurkServer(LocalServer):
    """The endpoint on ``host:port`` (port 0 picks a free one), in a background thread.

    with LocalMTurkServer(db=":memory:", balance="100.00") as server:
        client = make_client("local", local_url=server.url)
    """

    thread_name = "local-mturk"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        db: str = ":memory:",
        balance: str = "10000.00",
        public_url: str | None = None,
        require_https: bool = False,
    ) -> None:
        self.store = Store(db, balance=balance, require_https=require_https)
        self.listen(host, port, _Handler, public_url)
        self.attach(LocalMTurk(self.store, public_url=self.url))
