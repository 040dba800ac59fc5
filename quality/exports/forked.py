"""Large SQLite exports written by two processes, in the order one process would write them.

On SQLite the export's lines are made in Python (the database cannot write them faster, see
annotation/export_sql.py), about 17 µs a row on one core: 1,000,000 rows took 18 s. Here the
rows are cut into spans of ids; this process forks a helper, each writes every other span, and
the helper's spans come back through a pipe, so both cores work and the bytes are those of the
one-process path, in the same order.

Both read one snapshot: before either starts reading, this process holds SQLite's write lock
(BEGIN IMMEDIATE, on a connection of its own) while the helper and then this process open
their read transactions; writers wait those few milliseconds (their busy timeout covers it) and
then go on, unseen by the export. Nothing SQLite holds crosses the fork: every connection is
closed before it and both processes open their own after it.

Used only where forking is safe and pays: SQLite on a file, POSIX, at least two cores, one
thread in this process (a gunicorn sync worker, a management command; not the threaded dev
server) and a span of at least MIN_IDS ids. Otherwise the caller writes as before.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import struct
import threading
from typing import Any, Callable, Iterator, Sequence

from django.db import connections

#: the fewest ids (highest - lowest) worth a second process
MIN_IDS = 100_000
#: spans per process: small enough to keep both busy to the end, large enough for few round trips
SPANS_PER_PROCESS = 24

Spans = Callable[[Sequence[tuple[int, int]], int], Iterator[tuple[int, list[Sequence[Any]]]]]

_FRAME = struct.Struct("!q")  # a span's byte length; -1: the helper failed (its message follows)


def possible(alias: str) -> bool:
    """Whether forking is safe here (asked before the bounds, which cost a query)."""
    connection = connections[alias]
    name = str(connection.settings_dict.get("NAME") or "")
    return (
        connection.vendor == "sqlite"
        and hasattr(os, "fork")
        and (os.cpu_count() or 1) >= 2
        and threading.active_count() == 1
        and bool(name) and name != ":memory:" and not name.startswith("file:")
        and not connection.in_atomic_block
    )


def worth(bounds: tuple[int, int] | None) -> bool:
    """Whether rows within these id bounds are enough to pay for a second process."""
    return bounds is not None and bounds[1] - bounds[0] >= MIN_IDS


def applies(alias: str, bounds: tuple[int, int] | None) -> bool:
    """Whether `lines` will use two processes for these bounds on this database."""
    return worth(bounds) and possible(alias)


def split(bounds: tuple[int, int], parts: int) -> list[tuple[int, int]]:
    """`parts` consecutive [low, high) spans covering `bounds`."""
    low, high = bounds
    step = max(1, -(-(high - low) // parts))
    return [(start, min(start + step, high)) for start in range(low, high, step)]


def lines(alias: str, bounds: tuple[int, int], spans_of: Spans, render: Callable[[list[Sequence[Any]]], str],
          chunk_size: int) -> Iterator[bytes]:
    """The UTF-8 lines of every row in `bounds`, in id order: this process writes the even
    spans and a forked helper the odd ones (`spans_of(spans, chunk_size)` yields (span index,
    rows) as annotation_value_spans does)."""
    spans = split(bounds, 2 * SPANS_PER_PROCESS)
    mine, theirs = spans[0::2], spans[1::2]
    connection = connections[alias]
    path = str(connection.settings_dict["NAME"])
    connections.close_all()  # nothing SQLite holds may cross the fork
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    data_r, data_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the helper: never returns
        for fd in (go_w, ready_r, data_r):
            os.close(fd)
        _helper(connection, theirs, spans_of, render, chunk_size, go_r, ready_w, data_w)
    for fd in (go_r, ready_w, data_w):
        os.close(fd)
    go, ready = _Fd(go_w), _Fd(ready_r)
    data = os.fdopen(data_r, "rb", buffering=1 << 20)
    finished = False
    try:
        _share_snapshot(path, connection, go, ready)
        mine_pairs = _Lookahead(iter(spans_of(mine, chunk_size)))
        for index in range(len(spans)):
            if index % 2:
                if body := _frame(data):
                    yield body
            else:
                yield from mine_pairs.span(index // 2, render)
        finished = True
    finally:
        _end_read(connection)
        data.close()
        go.close()
        ready.close()
        if not finished:  # the client left, or this side failed: the helper has nothing to do
            _kill(pid)
        _, status = os.waitpid(pid, 0)
        if finished and status != 0:
            raise RuntimeError(f"export helper process exited with status {status}")


class _Lookahead:
    """(span index, rows) pairs with one read ahead: a span ends where the next one's first
    chunk shows, and that chunk waits for its turn (an empty span yields no pair)."""

    def __init__(self, pairs: Iterator[tuple[int, list[Sequence[Any]]]]):
        self.pairs, self.held = pairs, None

    def span(self, index: int, render: Callable[[list[Sequence[Any]]], str]) -> Iterator[bytes]:
        while True:
            head, self.held = self.held or next(self.pairs, None), None
            if head is None:
                return
            if head[0] != index:
                self.held = head
                return
            yield render(head[1]).encode("utf-8")


def _share_snapshot(path: str, connection: Any, go: "_Fd", ready: "_Fd") -> None:
    """Writers paused (BEGIN IMMEDIATE) while the helper, then this process, begin reading."""
    lock = sqlite3.connect(path, timeout=float(connection.settings_dict.get("OPTIONS", {}).get("timeout", 20)),
                           isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        os.write(go.fd, b"g")
        go.close()
        reply = ready.read_all()
        if reply != b"r":
            raise RuntimeError(f"export helper could not begin reading: {reply.decode(errors='replace')}")
        _begin_read(connection)
    finally:
        if lock.in_transaction:
            lock.execute("ROLLBACK")
        lock.close()


def _begin_read(connection: Any) -> None:
    """A read transaction on Django's connection (SQLite's BEGIN takes no lock until a read; the
    first read fixes the snapshot). Django's own transactions here are IMMEDIATE: not used."""
    connection.ensure_connection()
    connection.connection.execute("BEGIN DEFERRED")
    connection.connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()


def _end_read(connection: Any) -> None:
    if connection.connection is not None and connection.connection.in_transaction:
        connection.connection.execute("ROLLBACK")


def _helper(connection: Any, spans: list[tuple[int, int]], spans_of: Spans,
            render: Callable[[list[Sequence[Any]]], str], chunk_size: int, go_r: int, ready_w: int,
            data_w: int) -> None:
    """The forked process: its snapshot, then its spans as frames; it exits without running
    what the parent's process would run at exit (gunicorn's, Django's, atexit)."""
    code = 1
    try:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1,
                    signal.SIGUSR2, signal.SIGWINCH, signal.SIGCHLD, signal.SIGTTIN, signal.SIGTTOU):
            signal.signal(sig, signal.SIG_DFL)
        out = os.fdopen(data_w, "wb", buffering=1 << 20)
        try:
            if _Fd(go_r).read_all() != b"g":
                raise RuntimeError("the export was called off")
            _begin_read(connection)
            os.write(ready_w, b"r")
            os.close(ready_w)
            ready_w = -1
            current, parts = 0, []
            for index, rows in spans_of(spans, chunk_size):
                while index != current:  # spans before this one are complete (or empty)
                    _write_frame(out, parts)
                    current, parts = current + 1, []
                parts.append(render(rows).encode("utf-8"))
            while current < len(spans):
                _write_frame(out, parts)
                current, parts = current + 1, []
            out.flush()
            code = 0
        except BrokenPipeError:
            code = 0  # the parent stopped reading (its client left)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
            message = f"{type(exc).__name__}: {exc}".encode()
            if ready_w >= 0:
                os.write(ready_w, message)
            else:
                out.write(_FRAME.pack(-1) + message)
                out.flush()
    finally:
        os._exit(code)


def _write_frame(out: Any, parts: list[bytes]) -> None:
    out.write(_FRAME.pack(sum(map(len, parts))))
    for part in parts:
        out.write(part)
    out.flush()  # all of it now: the parent is waiting for this span, not for the next


def _frame(data: Any) -> bytes:
    head = data.read(_FRAME.size)
    if len(head) != _FRAME.size:
        raise RuntimeError("export helper process ended early")
    (size,) = _FRAME.unpack(head)
    if size < 0:
        raise RuntimeError("export helper process failed: " + data.read().decode(errors="replace"))
    body = data.read(size)
    if len(body) != size:
        raise RuntimeError("export helper process ended early")
    return body


class _Fd:
    """A pipe's end, closed once (a number closed twice could be another file's by then)."""

    def __init__(self, fd: int):
        self.fd = fd

    def read_all(self) -> bytes:
        chunks = []
        while chunk := os.read(self.fd, 4096):
            chunks.append(chunk)
        self.close()
        return b"".join(chunks)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
