"""A local OpenAI-compatible endpoint: `GET /v1/models` and `POST /v1/chat/completions` with
structured output, scripted accuracy per model name, token counts, fault injection and an admin
API. Standard library only. Run it with ``python -m annotation.llm.local --port 8767 --db
llm-local.sqlite3``; in tests, ``with LocalModelServer() as server:`` then a connection whose
``base_url`` is ``server.base_url``.
"""

from .faults import FAULT_KINDS, Faults
from .server import LocalModel, LocalModelServer
from .store import Store

__all__ = ["FAULT_KINDS", "Faults", "LocalModel", "LocalModelServer", "Store"]
