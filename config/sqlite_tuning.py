"""SQLite's memory statistics off, for a web process with several threads.

Debian's libsqlite3 (which Python's sqlite3 module links) keeps memory statistics on, so every
allocation SQLite makes takes one process-wide mutex: the threads of a gunicorn worker queued on
it (perf: 12% of the samples in mutex calls and futex waits; bench/README.md). SQLite's own advice
is to turn the statistics off where nothing reads them, and nothing here does. It can only be done
before the library initializes, that is before the first `import sqlite3`: config/wsgi.py and
config/asgi.py call this first thing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import sys

SQLITE_CONFIG_MEMSTATUS = 9  # sqlite3.h
SQLITE_OK = 0


def disable_memory_statistics() -> bool:
    """Whether the statistics are now off. False (and nothing changed) when sqlite3 is loaded
    already or the library cannot be found; a Python whose sqlite3 carries its own copy of SQLite
    keeps its statistics (this configures the shared library, harmlessly)."""
    if "_sqlite3" in sys.modules:
        return False
    path = ctypes.util.find_library("sqlite3")
    if path is None:
        return False
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return False
    return library.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, ctypes.c_int(0)) == SQLITE_OK
