"""The local Prolific-compatible endpoint over HTTP (stdlib ``http.server``, one thread per
connection).

    /api/v1/...              the researcher API subset (``ops_*``): JSON, ``Authorization:
                             Token <token>``, Prolific's status codes, pagination and errors
    /participant/, /submissions/complete   the participant simulator (``site.py``)
    /_local/...              the admin API for tests and demos (``admin.py``); no
                             authentication, so bind to 127.0.0.1 (the default)
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from annotation.local_endpoint import EndpointHandler, LocalServer
from annotation.prolific.fees import ACADEMIC_FEE_RATE

from . import admin, ops_studies, ops_submissions, participants, site  # noqa: F401  (register routes)
from .errors import ApiError
from .faults import Faults
from .routing import Call, resolve
from .store import Store

DEFAULT_TOKEN = "local-prolific-token"
log = logging.getLogger(__name__)


@dataclass
class Answer:
    status: int
    body: Any
    headers: tuple[tuple[str, str], ...] = ()
    lost: bool = False  # close the connection without answering (effect already done)


class LocalProlific:
    """The endpoint without the HTTP: state, faults, and what each API request gets back."""

    def __init__(self, store: Store, *, public_url: str, faults: Faults | None = None) -> None:
        self.store = store
        self.faults = faults or Faults()
        self.public_url = public_url.rstrip("/")
        self.completion_url = f"{self.public_url}/submissions/complete"

    def api(self, method: str, path: str, query: dict[str, str], raw: bytes, authorization: str | None) -> Answer:
        operation = ""
        try:
            operation, handler, args = resolve(method, path)
            self._authenticate(authorization)
            fault = self.faults.take(operation)
            if fault is not None and fault.kind != "lost":
                raise fault.error()
            body = self._json(raw)
            call = Call(self.store, args, query, body, self.public_url, path)
            status, result = handler(call)
            answer = Answer(status, result, lost=fault is not None)
        except ApiError as exc:
            answer = Answer(exc.status, exc.body(), exc.headers)
        except Exception:  # a bug here must look like Prolific's own 500, not kill the thread
            log.exception("local Prolific endpoint failed on %s %s", method, path)
            answer = Answer(500, ApiError(500, "Internal error in the local endpoint.").body())
        self.faults.record(operation, method=method, path=path, status=0 if answer.lost else answer.status)
        return answer

    def _authenticate(self, authorization: str | None) -> None:
        if not authorization:
            raise ApiError(401, "Authentication credentials were not provided.")
        scheme, _, token = authorization.partition(" ")
        if scheme != "Token" or token.strip() != self.store.token:
            raise ApiError(401, "Invalid token.")

    @staticmethod
    def _json(raw: bytes) -> Any:
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            raise ApiError(400, "JSON parse error.") from None


class _Handler(EndpointHandler):
    server_version = "LocalProlific/1.0"
    app: LocalProlific  # set on the subclass made per server

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def dispatch(self, method: str, raw: bytes) -> None:
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        if url.path.startswith("/api/"):
            return self._api(method, url.path, query, raw)
        if url.path.startswith("/_local/"):
            status, body = admin.handle(self.app, method, url.path, query, raw)
            return self.send(status, json.dumps(body, default=str).encode(), "application/json")
        if url.path == "/":
            return self.send(303, b"", "text/plain", [("Location", "/participant/")])
        form = dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
        participant = self.cookie(site.COOKIE)
        page = site.handle(
            self.app.store,
            method,
            url.path,
            {**query, **form},
            participant if site.PARTICIPANT_ID.match(participant) else None,
        )
        self.send(page.status, page.body.encode(), "text/html; charset=utf-8", page.headers)

    def _api(self, method: str, path: str, query: dict[str, str], raw: bytes) -> None:
        answer = self.app.api(method, path, query, raw, self.headers.get("Authorization"))
        if answer.lost:
            self.close_connection = True  # the effect happened; the answer never arrives
            return
        body = b"" if answer.status == 204 else json.dumps(answer.body).encode()
        self.send(answer.status, body, "application/json", list(answer.headers))


class LocalProlificServer(LocalServer):
    """The endpoint on ``host:port`` (port 0 picks a free one), in a background thread.

    with LocalProlificServer() as server:
        client = make_client(api_url=server.url, token=server.token)
    """

    thread_name = "local-prolific"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        db: str = ":memory:",
        token: str = DEFAULT_TOKEN,
        balance: int = 1_000_000,
        fee_rate: Decimal = ACADEMIC_FEE_RATE,
        vat_rate: Decimal = Decimal(0),
        currency: str = "GBP",
        public_url: str | None = None,
    ) -> None:
        self.token = token
        self.store = Store(db, balance=balance, token=token, fee_rate=fee_rate, vat_rate=vat_rate, currency=currency)
        self.listen(host, port, _Handler, public_url)
        self.attach(LocalProlific(self.store, public_url=self.url))
        self.completion_url = self.app.completion_url
