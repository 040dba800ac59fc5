"""A local MTurk-compatible endpoint: the requester API boto3 speaks, a minimal worker site,
fault injection and an admin API. Standard library only (plus botocore's service model for
validation). Run it with ``python -m annotation.mturk.local --port 8765``; in tests,
``with LocalMTurkServer() as server: make_client("local", local_url=server.url)``.
"""

from .faults import Fault, Faults
from .server import LocalMTurk, LocalMTurkServer
from .store import Store

__all__ = ["Fault", "Faults", "LocalMTurk", "LocalMTurkServer", "Store"]
