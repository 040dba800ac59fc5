"""The client of an OpenAI-compatible server (OpenAI, vLLM, llama.cpp's server, Ollama, the local
endpoint `annotation.llm.local`), through the official `openai` package: chat completions with
structured output (`response_format` of type `json_schema`).

Retries are the library's own (`max_retries`: 429, 408, 409, 5xx, timeouts and lost connections,
with exponential backoff and the server's `retry-after` honoured); what is left after them raises
`ModelError`, which says whether it was transient. The key is read from the environment variable
the connection names when the client is made: never logged, never stored, never returned. It
never touches the database."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, cast

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

#: sent as the key to a server that needs none (the library insists on one; never OPENAI_API_KEY
#: read behind the researcher's back)
NO_KEY = "no-key"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 4


class ConnectionLike(Protocol):
    """What the client reads of a connection (`annotation.models.ModelConnection`)."""

    base_url: str
    model: str
    api_key_env: str


@dataclass(frozen=True)
class Completion:
    """A reply: `content` parsed as JSON (None: it was not JSON, see `text`), the raw `text`,
    the model's `refusal` ("" : none), tokens as the server counted them, the latency of the
    call with its retries, and `attempts` (1: no retry)."""

    content: Any
    text: str
    refusal: str
    input_tokens: int
    output_tokens: int
    latency_ms: int
    attempts: int
    model: str


class ModelError(Exception):
    """A call that gave no reply after the client's retries. `transient`: worth trying again
    later (rate limits, server errors, timeouts, a lost connection); else the request or the
    connection is wrong (a bad key, an unknown model, a refused schema). `status`: HTTP status
    (0: no answer)."""

    def __init__(self, message: str, *, transient: bool, status: int = 0) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class MissingKey(ModelError):
    def __init__(self, name: str) -> None:
        super().__init__(f"the environment variable {name} (the connection's API key) is not set", transient=False)


def api_key(connection: ConnectionLike) -> str:
    """The key from the environment variable the connection names ("" names none)."""
    if not connection.api_key_env:
        return NO_KEY
    key = os.environ.get(connection.api_key_env, "")
    if not key:
        raise MissingKey(connection.api_key_env)
    return key


@lru_cache(maxsize=32)
def _client(base_url: str, key: str, timeout: float, max_retries: int) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries)


def client_for(
    connection: ConnectionLike, *, timeout: float = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_MAX_RETRIES
) -> openai.OpenAI:
    """One client per server, key and limits (cached: its connection pool is reused)."""
    return _client(connection.base_url.rstrip("/"), api_key(connection), float(timeout), int(max_retries))


def response_format(schema: dict[str, Any], name: str = "labels") -> dict[str, Any]:
    """The structured-output request for `schema` (strict: every field asked for is answered)."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def complete(
    connection: ConnectionLike,
    *,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    max_tokens: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
) -> Completion:
    """One chat completion whose answer must follow `schema`. Raises ModelError."""
    client = client_for(connection, timeout=timeout, max_retries=max_retries)
    started = time.monotonic()
    try:
        raw = client.chat.completions.with_raw_response.create(
            model=connection.model,
            messages=cast(list[ChatCompletionMessageParam], messages),
            response_format=cast(ResponseFormatJSONSchema, response_format(schema)),
            temperature=0,
            max_completion_tokens=openai.omit if max_tokens is None else max_tokens,
        )
        reply = raw.parse()
    except openai.APITimeoutError:
        raise ModelError(f"no reply within {timeout:g} s, {max_retries} retries included", transient=True) from None
    except openai.APIConnectionError as error:
        raise ModelError(f"cannot reach {connection.base_url}: {error}", transient=True) from None
    except openai.APIStatusError as error:
        transient = error.status_code in (408, 409, 429) or error.status_code >= 500
        raise ModelError(_status_message(error), transient=transient, status=error.status_code) from None
    latency = int((time.monotonic() - started) * 1000)
    return _completion(reply, latency, _attempts(raw))


def list_models(connection: ConnectionLike, *, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """The model names the server serves (`GET /models`): a connection's check. Raises ModelError."""
    try:
        return [model.id for model in client_for(connection, timeout=timeout, max_retries=1).models.list()]
    except openai.APIStatusError as error:
        raise ModelError(_status_message(error), transient=error.status_code >= 500, status=error.status_code) from None
    except openai.APIConnectionError as error:
        raise ModelError(f"cannot reach {connection.base_url}: {error}", transient=True) from None


def _status_message(error: openai.APIStatusError) -> str:
    """What the server said, without the request (which names no key, but may be long)."""
    return f"HTTP {error.status_code}: {error.message}"[:500]


def _attempts(raw: Any) -> int:
    """Requests made for the reply: the library counts its retries in a header it sends."""
    try:
        return int(raw.http_request.headers.get("x-stainless-retry-count", "0")) + 1
    except (AttributeError, ValueError):
        return 1


def _completion(reply: Any, latency_ms: int, attempts: int) -> Completion:
    message = reply.choices[0].message if reply.choices else None
    text = (message.content if message else None) or ""
    refusal = (getattr(message, "refusal", None) if message else None) or ""
    try:
        content = json.loads(text) if text else None
    except ValueError:
        content = None
    usage = reply.usage
    return Completion(
        content=content,
        text=text,
        refusal=refusal,
        input_tokens=int(usage.prompt_tokens) if usage else 0,
        output_tokens=int(usage.completion_tokens) if usage else 0,
        latency_ms=latency_ms,
        attempts=attempts,
        model=reply.model or "",
    )
