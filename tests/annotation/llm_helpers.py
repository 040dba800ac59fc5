"""The local model endpoint in a test: a server on a free port and its admin API."""

from __future__ import annotations

import json
import urllib.request
from types import SimpleNamespace
from typing import Any

from annotation.llm.local import LocalModelServer


def admin(server: LocalModelServer, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{server.url}/_local/{path}", data=data, method=method)
    with urllib.request.urlopen(request) as reply:
        return json.loads(reply.read())


def connection(server: LocalModelServer, model: str = "local-model", key_env: str = "") -> SimpleNamespace:
    return SimpleNamespace(base_url=server.base_url, model=model, api_key_env=key_env)
