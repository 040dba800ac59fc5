"""config.sqlite_tuning: the web process turns SQLite's memory statistics off before sqlite3 loads
(each allocation then no longer takes SQLite's global mutex). Checked in fresh interpreters, with
SQLite's own counter: with the statistics off it stays at 0 however much SQLite allocates."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MEMORY_USED = """
import ctypes, ctypes.util, sqlite3
connection = sqlite3.connect(":memory:")
connection.execute("CREATE TABLE t (x)")
connection.executemany("INSERT INTO t VALUES (?)", [("x" * 100,)] * 1000)
library = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
library.sqlite3_memory_used.restype = ctypes.c_int64
print(library.sqlite3_memory_used())
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.fixture(scope="module")
def shared_library():
    import ctypes.util

    import sqlite3

    if ctypes.util.find_library("sqlite3") is None:
        pytest.skip("no shared libsqlite3 to configure")
    probe = _run(MEMORY_USED)
    if int(probe[-1]) == 0:
        pytest.skip("this Python's sqlite3 does not count through the shared library")
    return sqlite3.sqlite_version


def test_statistics_are_off_when_set_before_sqlite3_loads(shared_library):
    out = _run("from config.sqlite_tuning import disable_memory_statistics as off; print(off())" + MEMORY_USED)
    assert out == ["True", "0"]


def test_too_late_once_sqlite3_is_loaded(shared_library):
    out = _run("import sqlite3; from config.sqlite_tuning import disable_memory_statistics as off; print(off())"
               + MEMORY_USED)
    assert out[0] == "False" and int(out[1]) > 0


def test_the_wsgi_application_loads_with_statistics_off(shared_library):
    out = _run("import config.wsgi" + MEMORY_USED)
    assert out == ["0"]
