"""A local Prolific-compatible endpoint: the researcher API subset the client uses, a
participant simulator, fault injection and an admin API. Standard library only. Run it with
``python -m annotation.prolific.local --port 8766 --db prolific-local.sqlite3``; in tests,
``with LocalProlificServer() as server: make_client(api_url=server.url, token=server.token)``.
"""

from .faults import Fault, Faults
from .server import DEFAULT_TOKEN, LocalProlific, LocalProlificServer
from .store import Store

__all__ = ["DEFAULT_TOKEN", "Fault", "Faults", "LocalProlific", "LocalProlificServer", "Store"]
