"""The scaffolding the local recruiting-site endpoints (``annotation.mturk.local``,
``annotation.prolific.local``) share: `state` (SQLite store, fault rules, admin routes) and
`server` (HTTP handler, threaded server, lifecycle, command line). Standard library only."""

from .server import MAX_BODY, EndpointHandler, EndpointHTTPServer, LocalServer, command_parser, serve
from .state import FaultBook, SqliteStore, dumps, faults_route, json_object

__all__ = [
    "MAX_BODY",
    "EndpointHTTPServer",
    "EndpointHandler",
    "FaultBook",
    "LocalServer",
    "SqliteStore",
    "command_parser",
    "dumps",
    "faults_route",
    "json_object",
    "serve",
]
