"""The call log: every call a channel's client makes to its site, and how it ended, recorded on
the batch it is made for (``ChannelCall``).

A channel's client reports each finished call through ``call_record`` (Prolific: the client's
``on_call`` hook; MTurk: boto3's documented ``before-call``/``after-call`` events). Which batch a
call is for comes from the service that makes it: services that take ``batch=`` are decorated with
``records_calls``, which names the batch for every call made inside them (a ``ContextVar``, so
threads and Celery tasks each see their own). A call outside any such service (the account
balance) is recorded without a batch.

Nothing secret is kept: the request is summarised as method, path and body, with any field whose
name says token, secret, password or key masked; credentials travel in headers, never kept.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from annotation.models import Batch

MAX_REQUEST = 1000
MAX_ERROR = 2000
SECRET_NAMES = re.compile(r"token|secret|password|authorization|api_?key|access_?key", re.IGNORECASE)
_batch_id: ContextVar[int | None] = ContextVar("channel_call_batch", default=None)
F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def calls_recorded_on(batch: "Batch | None") -> Iterator[None]:
    """Record the channel calls made inside the block on ``batch``."""
    token = _batch_id.set(batch.pk if batch is not None else None)
    try:
        yield
    finally:
        _batch_id.reset(token)


def records_calls(service: F) -> F:
    """For a keyword-only service taking ``batch=``: its channel calls are recorded on that batch."""

    @functools.wraps(service)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with calls_recorded_on(kwargs.get("batch")):
            return service(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def masked(value: Any) -> Any:
    """``value`` with every field whose name sounds secret replaced by ``***``."""
    if isinstance(value, dict):
        return {k: "***" if SECRET_NAMES.search(str(k)) else masked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked(v) for v in value]
    return value


def request_summary(method: str, path: str, *, params: Any = None, body: Any = None) -> str:
    """``POST /api/v1/studies/ {"name": ...}``, cut to MAX_REQUEST characters, secrets masked."""
    text = f"{method} {path}"
    if params:
        text += " ?" + json.dumps(masked(params), sort_keys=True, default=str)
    if body not in (None, "", {}):
        if isinstance(body, str | bytes):
            try:
                body = json.loads(body)
            except ValueError:
                body = "<not JSON>"
        text += " " + json.dumps(masked(body), sort_keys=True, default=str, ensure_ascii=False)
    return text if len(text) <= MAX_REQUEST else text[: MAX_REQUEST - 1] + "…"


def call_record(
    *, channel: str, operation: str, request: str, status: int | None, error: str = "", seconds: float | None = None
) -> None:
    """Keep one finished call on the batch of the service that made it (see ``records_calls``)."""
    from annotation.models import ChannelCall

    ChannelCall.objects.create(
        batch_id=_batch_id.get(),
        channel=channel,
        operation=operation[:80],
        request=request[:MAX_REQUEST],
        status=status or None,
        outcome=ChannelCall.outcome_of(status),
        error=error[:MAX_ERROR],
        duration_ms=None if seconds is None else max(0, round(seconds * 1000)),
    )
