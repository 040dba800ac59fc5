"""The boto3 MTurk client: which endpoint, which credentials, which retry policy.

One switch, ``MTURK_ENDPOINT``, picks ``local`` (the MTurk-compatible server in
``annotation.mturk.local``), ``sandbox`` or ``production``; the code path is the same for all
three, only the URL and the credentials change. Region is always us-east-1.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, TypeAlias
from urllib.parse import urlencode

import boto3
from botocore.client import BaseClient
from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from .errors import translate

REGION = "us-east-1"
LOCAL, SANDBOX, PRODUCTION = "local", "sandbox", "production"
ENDPOINT_URLS = {
    PRODUCTION: "https://mturk-requester.us-east-1.amazonaws.com",
    SANDBOX: "https://mturk-requester-sandbox.us-east-1.amazonaws.com",
}
WORKER_SITES = {
    PRODUCTION: "https://worker.mturk.com",
    SANDBOX: "https://workersandbox.mturk.com",
}
ENDPOINTS = (LOCAL, SANDBOX, PRODUCTION)
RETRY_MODES = ("standard", "adaptive")
DEFAULT_LOCAL_URL = "http://127.0.0.1:8765"
# Credentials sent to the local endpoint when none are given (it does not check signatures).
LOCAL_CREDENTIALS = ("LOCALMTURKKEY", "local-mturk-secret")

MTurkClient: TypeAlias = BaseClient  # boto3's generated client class has no importable name


def check_endpoint(endpoint: str) -> str:
    if endpoint not in ENDPOINTS:
        raise ValueError(f"unknown MTurk endpoint {endpoint!r}; known: {', '.join(ENDPOINTS)}")
    return endpoint


def endpoint_url(endpoint: str, *, local_url: str | None = None) -> str:
    """The requester API URL of ``endpoint`` (``local_url`` for ``local``)."""
    if check_endpoint(endpoint) == LOCAL:
        if not local_url:
            raise ValueError("the local MTurk endpoint needs local_url (MTURK_LOCAL_URL)")
        return local_url.rstrip("/")
    return ENDPOINT_URLS[endpoint]


def worker_site_url(endpoint: str, *, local_url: str | None = None) -> str:
    """Where workers find HITs: worker.mturk.com, the sandbox, or the local server."""
    if check_endpoint(endpoint) == LOCAL:
        return endpoint_url(LOCAL, local_url=local_url)
    return WORKER_SITES[endpoint]


def preview_url(endpoint: str, hit_type_id: str, *, local_url: str | None = None) -> str:
    """The worker-facing page of a HIT group (``/mturk/preview?groupId=<HITTypeId>``)."""
    base = worker_site_url(endpoint, local_url=local_url)
    return f"{base}/mturk/preview?{urlencode({'groupId': hit_type_id})}"


def make_client(
    endpoint: str,
    *,
    local_url: str | None = None,
    aws_access_key_id: str | None = None,
    aws_secret_access_key: str | None = None,
    retry_mode: str = "standard",
    max_attempts: int = 5,
    connect_timeout: float = 10,
    read_timeout: float = 30,
) -> MTurkClient:
    """A new boto3 MTurk client. ``max_attempts`` counts the first request too.

    Without keys, sandbox and production use boto3's usual credential chain (environment,
    ~/.aws, instance role); the local endpoint gets dummy keys.
    """
    if retry_mode not in RETRY_MODES:
        raise ValueError(f"retry_mode must be one of {RETRY_MODES}, not {retry_mode!r}")
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    url = endpoint_url(endpoint, local_url=local_url)
    if endpoint == LOCAL and not (aws_access_key_id and aws_secret_access_key):
        aws_access_key_id, aws_secret_access_key = LOCAL_CREDENTIALS
    config = Config(
        region_name=REGION,
        retries={"mode": retry_mode, "total_max_attempts": max_attempts},
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
    )
    session = boto3.session.Session(
        aws_access_key_id=aws_access_key_id or None,
        aws_secret_access_key=aws_secret_access_key or None,
        region_name=REGION,
    )
    return session.client("mturk", region_name=REGION, endpoint_url=url, config=config)


def client_from_settings() -> MTurkClient:
    """The client configured by Django settings (MTURK_ENDPOINT, MTURK_LOCAL_URL,
    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, MTURK_RETRY_MODE, MTURK_MAX_ATTEMPTS).

    Settings are read at call time; one client per distinct configuration is cached (boto3
    clients are thread-safe, and building one costs milliseconds).
    """
    from django.conf import settings

    return _cached_client(
        getattr(settings, "MTURK_ENDPOINT", LOCAL),
        getattr(settings, "MTURK_LOCAL_URL", DEFAULT_LOCAL_URL),
        getattr(settings, "AWS_ACCESS_KEY_ID", "") or None,
        getattr(settings, "AWS_SECRET_ACCESS_KEY", "") or None,
        getattr(settings, "MTURK_RETRY_MODE", "standard"),
        int(getattr(settings, "MTURK_MAX_ATTEMPTS", 5)),
    )


@functools.lru_cache(maxsize=8)
def _cached_client(endpoint, local_url, key_id, secret, retry_mode, max_attempts) -> MTurkClient:
    return make_client(
        endpoint,
        local_url=local_url,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        retry_mode=retry_mode,
        max_attempts=max_attempts,
    )


def call(client: MTurkClient, operation: str, **params: Any) -> dict[str, Any]:
    """Call ``operation`` (PascalCase), raising the wrapper's errors instead of botocore's."""
    method = getattr(client, _snake(operation))
    try:
        return method(**params)
    except (ClientError, BotoConnectionError, HTTPClientError) as exc:
        raise translate(exc, operation) from exc


def unique_request_token(*parts: object) -> str:
    """A deterministic UniqueRequestToken (64 hex characters) for the given parts, e.g.
    ``unique_request_token("publish", unit.pk, hit_round)``: the same work gets the same token,
    so a retried call can never create a second HIT or pay twice."""
    text = "\x1f".join(str(part) for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_token(token: str) -> str:
    if not isinstance(token, str) or not 1 <= len(token) <= 64:
        raise ValueError("a UniqueRequestToken has 1 to 64 characters")
    return token


@functools.cache
def _snake(operation: str) -> str:
    from botocore import xform_name

    return xform_name(operation)
