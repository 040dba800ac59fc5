"""The local OpenAI-compatible endpoint over HTTP (stdlib ``http.server``, one thread per
connection).

    GET  /v1/models              the scripted models and ``local-model``
    POST /v1/chat/completions    a reply valid against the request's ``json_schema``, with
                                 ``usage`` (a token per four characters), faults on request;
                                 any key is accepted (the endpoint checks none)
    /_local/...                  the admin API (``admin.py``); no authentication, so bind to
                                 127.0.0.1 (the default)
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from annotation.llm.schema_values import count_tokens
from annotation.local_endpoint import EndpointHandler, LocalServer

from . import admin
from .answers import answer, item_key, request_hash
from .faults import Faults
from .store import Store

DEFAULT_MODEL = "local-model"
REFUSAL = "I can't help with that request. (A refusal injected by the local endpoint.)"
log = logging.getLogger(__name__)


@dataclass
class Reply:
    status: int
    body: Any
    headers: tuple[tuple[str, str], ...] = ()


def _error(status: int, message: str, kind: str) -> Reply:
    return Reply(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})


class LocalModel:
    """The endpoint without the HTTP: state, faults, and what each request gets back."""

    def __init__(self, store: Store, faults: Faults | None = None) -> None:
        self.store = store
        self.faults = faults or Faults()

    def models(self) -> Reply:
        names = sorted({DEFAULT_MODEL, *self.store.models()})
        data = [{"id": name, "object": "model", "created": 0, "owned_by": "local"} for name in names]
        return Reply(200, {"object": "list", "data": data})

    def chat(self, raw: bytes) -> Reply:
        try:
            request = json.loads(raw or b"{}")
            model, messages, schema = _parts(request)
        except (ValueError, TypeError, KeyError) as exc:
            return _error(400, f"invalid request: {exc}", "invalid_request_error")
        item, digest = item_key(messages), request_hash(model, messages, schema)
        input_tokens = count_tokens("".join(str(m.get("content", "")) for m in messages) + json.dumps(schema))
        fault = self.faults.take()
        reply, output_tokens = self._reply(fault, model=model, item=item, schema=schema, digest=digest)
        tokens = (input_tokens, output_tokens) if reply.status == 200 else (0, 0)
        if reply.status == 200:
            reply.body["usage"] = {
                "prompt_tokens": tokens[0],
                "completion_tokens": tokens[1],
                "total_tokens": sum(tokens),
            }
        self.store.record(model=model, item=item, request_hash=digest, status=reply.status, fault=fault, tokens=tokens)
        return reply

    def _reply(self, fault: str, *, model: str, item: str, schema: dict[str, Any], digest: str) -> tuple[Reply, int]:
        if fault == "429":
            reply = _error(429, "Rate limit reached (injected by the local endpoint).", "rate_limit_exceeded")
            reply.headers = (("retry-after", f"{self.faults.retry_after:g}"),)
            return reply, 0
        if fault == "500":
            return _error(500, "The server had an error (injected by the local endpoint).", "server_error"), 0
        if fault == "slow":
            time.sleep(self.faults.slow_seconds)
        if fault == "refusal":
            return Reply(200, _completion(model, None, REFUSAL)), count_tokens(REFUSAL)
        content = json.dumps(answer(self.store, model=model, item=item, schema=schema, digest=digest))
        if fault == "malformed":
            content = content[: max(1, len(content) // 2)]  # cut short: not JSON
        return Reply(200, _completion(model, content, None)), count_tokens(content)


def _parts(request: Any) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """The model, messages and answer schema of a chat completion request; ValueError when one
    is missing (the endpoint answers structured-output requests only)."""
    if not isinstance(request, dict) or not isinstance(request.get("model"), str):
        raise ValueError("'model' is required")
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ValueError("'messages' must be a non-empty list of objects")
    response_format = request.get("response_format") or {}
    if response_format.get("type") != "json_schema":
        raise ValueError("response_format must be of type 'json_schema' (the local endpoint answers structured output)")
    schema = response_format["json_schema"]["schema"]
    if not isinstance(schema, dict):
        raise ValueError("'response_format.json_schema.schema' must be an object")
    return request["model"], messages, schema


def _completion(model: str, content: str | None, refusal: str | None) -> dict[str, Any]:
    message = {"role": "assistant", "content": content, "refusal": refusal}
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
    }


class _Handler(EndpointHandler):
    server_version = "LocalModel/1.0"
    app: LocalModel  # set on the subclass made per server

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except ConnectionResetError:  # a client that died mid-request (killed, as the bench's crash)
            self.close_connection = True

    def dispatch(self, method: str, raw: bytes) -> None:
        url = urlsplit(self.path)
        path = url.path.rstrip("/")
        if path.startswith("/_local/"):
            status, body = admin.handle(self.app, method, path, dict(parse_qsl(url.query)), raw)
            return self.send(status, json.dumps(body, default=str).encode(), "application/json")
        if (method, path) == ("GET", "/v1/models"):
            reply = self.app.models()
        elif (method, path) == ("POST", "/v1/chat/completions"):
            reply = self.app.chat(raw)
        else:
            reply = _error(404, f"no route {method} {url.path}", "invalid_request_error")
        try:
            self.send(reply.status, json.dumps(reply.body).encode(), "application/json", list(reply.headers))
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a slow reply past its timeout)
            self.close_connection = True


class LocalModelServer(LocalServer):
    """The endpoint on ``host:port`` (port 0 picks a free one), in a background thread; its
    OpenAI-compatible API at ``base_url`` (``<url>/v1``)."""

    thread_name = "local-model"

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, db: str = ":memory:") -> None:
        self.store = Store(db)
        self.listen(host, port, _Handler, None)
        self.attach(LocalModel(self.store))
        self.base_url = f"{self.url}/v1"
