"""MTurk's calls in the call log, through boto3's documented event hooks (``before-call``,
``after-call``, ``after-call-error``; boto3 guide "Extensibility: events"), registered once per
client under fixed ``unique_id``s. boto3 retries inside one call, so one entry is one call."""

from __future__ import annotations

import time
from typing import Any

from .calls import call_record, request_summary

CHANNEL = "mturk"
STARTED = "annotation_call_started"  # our key in the request context boto3 hands every hook


def watch(client: Any) -> Any:
    """``client`` with the call log hooks on (registering again is a no-op)."""
    events = client.meta.events
    events.register("before-call.mturk", _started, unique_id="annotation-call-log-start")
    events.register("after-call.mturk", _answered, unique_id="annotation-call-log-answer")
    events.register("after-call-error.mturk", _no_answer, unique_id="annotation-call-log-error")
    return client


def _started(model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    summary = request_summary(params.get("method", "POST"), model.name, body=params.get("body"))
    context[STARTED] = (time.monotonic(), model.name, summary)


def _answered(http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
    started, _name, summary = context.get(STARTED, (None, model.name, model.name))
    error = parsed.get("Error") or {}
    text = f"{error.get('Code', '')}: {error.get('Message', '')}" if http_response.status_code >= 300 else ""
    call_record(
        channel=CHANNEL,
        operation=model.name,
        request=summary,
        status=http_response.status_code,
        error=text,
        seconds=None if started is None else time.monotonic() - started,
    )


def _no_answer(exception: Exception, context: dict[str, Any], **_: Any) -> None:
    started, name, summary = context.get(STARTED, (None, "unknown", ""))
    call_record(
        channel=CHANNEL,
        operation=name,
        request=summary,
        status=None,
        error=f"{type(exception).__name__}: {exception}",
        seconds=None if started is None else time.monotonic() - started,
    )
