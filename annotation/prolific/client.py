"""The HTTP client: base URL, token, timeouts, and which calls may be retried.

Retries are urllib3's ``Retry`` mounted on a ``requests`` session (the documented way):
exponential back-off, ``Retry-After`` honoured on 429/503. Two sessions share the settings:

- ``retrying``: for calls that are safe to repeat (reads, transitions, approvals; Prolific
  documents the submission transition as idempotent). Retries 429, 5xx, connection and read
  errors.
- ``once``: for calls that are not (create a study, set up or pay a bonus). Retries only what
  cannot have reached Prolific's logic: a refused connection and a 429. A 5xx or a lost
  answer raises ``ProlificOutcomeUnknownError``.

``on_call`` (optional) hears of every finished call (a ``CallOutcome``, after the retries):
the platform's call log. Make a client with it by ``dataclasses.replace(client, on_call=...)``;
the sessions are shared. The token is never part of what it hears.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError
from urllib3.util.retry import Retry

from .errors import (
    ProlificError,
    ProlificOutcomeUnknownError,
    ProlificUnavailableError,
    from_response,
)

DEFAULT_API_URL = "https://api.prolific.com"
API_PREFIX = "/api/v1/"
RETRY_STATUSES = (429, 500, 502, 503, 504)
USER_AGENT = "annotation-platform-prolific/1"


@dataclass(frozen=True)
class CallOutcome:
    """One finished API call: ``status`` 0 when no answer came; ``error`` empty on success."""

    operation: str
    method: str
    path: str
    params: dict[str, Any] | None
    body: Any
    status: int
    error: str
    seconds: float


@dataclass(frozen=True)
class ProlificClient:
    """Where to send calls and how: build with ``make_client`` or ``client_from_settings``."""

    api_url: str
    retrying: requests.Session
    once: requests.Session
    timeout: tuple[float, float]
    on_call: Callable[[CallOutcome], None] | None = None

    def url(self, path: str) -> str:
        """``path`` ("studies/") under the API prefix; keeps Prolific's trailing slash."""
        return f"{self.api_url}{API_PREFIX}{path.lstrip('/')}"


def _session(token: str, retry: Retry) -> requests.Session:
    session = requests.Session()
    session.headers.update({"Authorization": f"Token {token}", "Accept": "application/json", "User-Agent": USER_AGENT})
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def make_client(
    *,
    api_url: str = DEFAULT_API_URL,
    token: str,
    max_retries: int = 4,
    backoff_factor: float = 0.5,
    backoff_max: float = 30,
    retry_after_max: int = 60,
    connect_timeout: float = 5,
    read_timeout: float = 30,
) -> ProlificClient:
    """A client for ``api_url`` (Prolific, or the local endpoint) authenticated by ``token``.

    ``max_retries`` counts retries after the first request; the wait doubles from
    ``backoff_factor`` seconds (capped by ``backoff_max``) unless Prolific sends Retry-After
    (capped by ``retry_after_max``).
    """
    if not token:
        raise ValueError("a Prolific API token is needed (PROLIFIC_API_TOKEN)")

    def policy(
        forced: Collection[int],
        *,
        connect: int | None = None,
        read: int | None = None,
        other: int | None = None,
        status: int | None = None,
    ) -> Retry:
        return Retry(
            total=max_retries,
            connect=connect,
            read=read,
            other=other,
            status=status,
            status_forcelist=forced,
            allowed_methods=None,
            backoff_factor=backoff_factor,
            backoff_max=backoff_max,
            retry_after_max=retry_after_max,
            respect_retry_after_header=True,
            raise_on_status=False,
            redirect=0,
        )

    retrying = policy(RETRY_STATUSES)
    once = policy((429,), connect=max_retries, read=0, other=0, status=max_retries)
    return ProlificClient(
        api_url=api_url.rstrip("/"),
        retrying=_session(token, retrying),
        once=_session(token, once),
        timeout=(connect_timeout, read_timeout),
    )


def client_from_settings() -> ProlificClient:
    """The client for Django settings ``PROLIFIC_API_URL`` and ``PROLIFIC_API_TOKEN`` (read at
    call time; one client per distinct pair is cached, as sessions pool connections)."""
    from django.conf import settings

    return _cached_client(
        getattr(settings, "PROLIFIC_API_URL", "") or DEFAULT_API_URL, getattr(settings, "PROLIFIC_API_TOKEN", "")
    )


@functools.lru_cache(maxsize=4)
def _cached_client(api_url: str, token: str) -> ProlificClient:
    return make_client(api_url=api_url, token=token)


def call(
    client: ProlificClient,
    method: str,
    path: str,
    *,
    operation: str,
    idempotent: bool,
    json: Any = None,
    params: dict[str, Any] | None = None,
) -> Any:
    """Send one API call; the decoded JSON body (None for an empty one), or a ProlificError.
    The client's ``on_call`` hears how it ended."""
    started, status, error = time.monotonic(), 0, ""
    try:
        status, body = _send(client, method, path, operation=operation, idempotent=idempotent, json=json, params=params)
        return body
    except ProlificError as exc:
        status, error = exc.status, str(exc)
        raise
    finally:
        if client.on_call is not None:
            client.on_call(
                CallOutcome(
                    operation=operation,
                    method=method,
                    path=f"{API_PREFIX}{path.lstrip('/')}",
                    params=params,
                    body=json,
                    status=status,
                    error=error,
                    seconds=time.monotonic() - started,
                )
            )


def _send(
    client: ProlificClient,
    method: str,
    path: str,
    *,
    operation: str,
    idempotent: bool,
    json: Any,
    params: dict[str, Any] | None,
) -> tuple[int, Any]:
    session = client.retrying if idempotent else client.once
    try:
        response = session.request(method, client.url(path), json=json, params=params, timeout=client.timeout)
    except requests.RequestException as exc:
        raise _no_answer(operation, idempotent, exc) from exc
    body = _decode(response)
    if response.ok:
        return response.status_code, body
    if not idempotent and response.status_code >= 500:
        raise ProlificOutcomeUnknownError(
            f"Prolific answered {response.status_code} to a call that is not safe to repeat; "
            "it may have taken effect. Look before trying again.",
            operation=operation,
            status=response.status_code,
        )
    raise from_response(operation, response.status_code, body)


def _decode(response: requests.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _no_answer(operation: str, idempotent: bool, exc: Exception) -> ProlificError:
    reason = f"{type(exc).__name__}: {exc}"
    if idempotent or _never_sent(exc):
        return ProlificUnavailableError(f"no answer from Prolific ({reason}). Retry later.", operation=operation)
    return ProlificOutcomeUnknownError(
        f"the answer was lost ({reason}); the call may have taken effect. Look before trying again.",
        operation=operation,
    )


def _never_sent(exc: Exception) -> bool:
    """Whether the request cannot have reached Prolific (no connection was ever made)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, ConnectTimeoutError)  # NewConnectionError is one of these
