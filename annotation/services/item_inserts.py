"""How imported items reach the table, fast. Items are written without the ORM (bulk_create spent
0.2-0.45 s building Item instances and encoding payloads for a 10,000-item file, see bench/README.md), fed while the file is still
being parsed: on SQLite, multi-row INSERTs from rows a parser thread prepares (sqlite3 lets go
of the GIL while SQLite writes pages, so parsing runs on the other core); on PostgreSQL,
binary COPY FROM STDIN pulling the parsed rows; other databases use bulk_create.
"""

from __future__ import annotations

import queue
import sqlite3
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone, translation

from annotation.kinds import ParsedItem
from annotation.kinds.formats import payload_json
from annotation.models import Item, Project

BULK_SIZE = 2000
#: COPY sends rows in chunks of about this size; PostgreSQL stores one while Python parses on
COPY_CHUNK_BYTES = 256 * 1024
#: SQLite: rows per INSERT statement. sqlite3 holds the GIL between statements and lets go of it
#: inside one, so the parser thread runs while SQLite writes a whole batch; one row per
#: statement (executemany) would make the writer wait for the GIL (up to 5 ms) at every row.
SQLITE_BATCH_ROWS = 500
#: SQLite: batches the parser thread may prepare ahead of the writer (bounds the memory held)
SQLITE_READ_AHEAD = 4
#: every column an import writes (all of Item's but the id), in the order rows list them
ITEM_FIELDS = ("project", "external_id", "payload", "group_key", "source", "created_at")
#: COPY's binary format: the file header (signature, no flags, no extension) and trailer
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
_COPY_TRAILER = struct.pack("!h", -1)
#: timestamptz in binary COPY: microseconds since this instant
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
#: jsonb in binary COPY: this version byte, then the JSON text
_JSONB_VERSION = b"\x01"

T = TypeVar("T")
Inserter = Callable[[BaseDatabaseWrapper, Project, Iterable[ParsedItem], str, datetime], None]


def inserter(connection: BaseDatabaseWrapper) -> tuple[Inserter, bool]:
    """How items reach the table, and whether it can take them while the file is being parsed."""
    if connection.vendor == "sqlite":
        return _insert_sqlite, True
    # every backend's wrapper has `Database` (its DB-API module); django-stubs leave it out
    if connection.vendor == "postgresql" and connection.Database.__name__ == "psycopg2":  # type: ignore[attr-defined]
        return _insert_copy, True
    return _insert_orm, False


def _source(label: str, line: int) -> str:
    return f"{label}:{line}"[:255]


def _columns(connection: BaseDatabaseWrapper) -> str:
    return ", ".join(connection.ops.quote_name(_column(name)) for name in ITEM_FIELDS)


def _column(name: str) -> str:
    """The table column of one of Item's concrete fields (Django's Model _meta API)."""
    field = Item._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.column:
        raise TypeError(f"Item.{name} has no column of its own")
    return field.column


def _insert_sqlite(
    connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem], label: str, now: datetime
) -> None:
    """SQLite: multi-row INSERTs of the values Django would write, prepared by a parser thread.

    `items` (the parsing) is consumed in that thread; its exception (a bad line) is raised here,
    after the batches before it were inserted, and the caller's transaction rolls back.
    """
    table = connection.ops.quote_name(Item._meta.db_table)
    head = f"INSERT INTO {table} ({_columns(connection)}) VALUES "
    created_at = connection.ops.adapt_datetimefield_value(now)
    batches = _sqlite_batches(project, items, label, created_at, _sqlite_batch_rows(connection))
    with _read_ahead(batches, SQLITE_READ_AHEAD) as ready, connection.cursor() as cursor:
        for rows, params in ready:
            cursor.execute(_values_sql(head, rows), params)


def _sqlite_batch_rows(connection: BaseDatabaseWrapper) -> int:
    """SQLITE_BATCH_ROWS, or fewer where the library takes fewer values per statement (999
    before SQLite 3.32, or as it was compiled)."""
    connection.ensure_connection()
    limit = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(SQLITE_BATCH_ROWS, limit // len(ITEM_FIELDS)))


def _values_sql(head: str, rows: int) -> str:
    return head + ", ".join(("(%s, %s, %s, %s, %s, %s)",) * rows)


def _sqlite_batches(
    project: Project, items: Iterable[ParsedItem], label: str, created_at: Any, batch_rows: int
) -> Iterator[tuple[int, list[Any]]]:
    """(rows, their values in one flat list) per `batch_rows` items, in ITEM_FIELDS order."""
    params: list[Any] = []
    rows = 0
    for item in items:
        params += (
            project.pk,
            item.external_id,
            payload_json(item.payload).decode("utf-8"),
            item.group_key,
            _source(label, item.line),
            created_at,
        )
        rows += 1
        if rows == batch_rows:
            yield rows, params
            params, rows = [], 0
    if rows:
        yield rows, params


@contextmanager
def _read_ahead(source: Iterator[T], depth: int) -> Iterator[Iterator[T]]:
    """`source`'s values, computed in a thread at most `depth` values ahead of the consumer.

    The thread's exception is raised in the consumer when it reaches it; leaving the block
    (done, or failed on either side) stops the thread and waits for it, so none is left running.
    The thread runs in the caller's language, so messages it builds read as they would here.
    """
    ahead: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    args = (source, ahead, stop, translation.get_language())
    thread = threading.Thread(target=_produce, args=args, name="import-read-ahead", daemon=True)
    thread.start()
    try:
        yield _consume(ahead)
    finally:
        stop.set()
        while thread.is_alive():  # a producer blocked on the full queue needs a free slot to see `stop`
            try:
                ahead.get(timeout=0.01)
            except queue.Empty:
                pass
        thread.join()


def _produce(
    source: Iterator[T], ahead: "queue.Queue[tuple[bool, Any]]", stop: threading.Event, language: str | None
) -> None:
    """The read-ahead thread: (True, value) per value, then (False, None) or (False, exception)."""
    try:
        with translation.override(language):
            for value in source:
                if stop.is_set():
                    return
                ahead.put((True, value))
    except BaseException as exc:  # handed to the consumer, which raises it
        ahead.put((False, exc))
    else:
        ahead.put((False, None))


def _consume(ahead: "queue.Queue[tuple[bool, Any]]") -> Iterator[Any]:
    while True:
        ok, value = ahead.get()
        if ok:
            yield value
        elif value is None:
            return
        else:
            raise value


def _insert_copy(
    connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem], label: str, now: datetime
) -> None:
    """PostgreSQL: binary COPY FROM STDIN, reading `items` as PostgreSQL asks for more rows.

    An exception while reading (a bad line) makes psycopg2 abort the COPY and raise its own
    error instead; the original is raised here, and the caller's transaction rolls back.
    """
    table = connection.ops.quote_name(Item._meta.db_table)
    stream = _CopyStream(_copy_chunks(_copy_row_head(connection, project), items, label, now))
    with connection.cursor() as cursor, connection.wrap_database_errors:
        try:
            cursor.copy_expert(f"COPY {table} ({_columns(connection)}) FROM STDIN (FORMAT binary)", stream)
        except Exception:
            if stream.error is None:
                raise
            raise stream.error from None


def _insert_orm(
    connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem], label: str, now: datetime
) -> None:
    """Other databases: bulk_create (created_at is then set by the field itself)."""
    Item.objects.using(connection.alias).bulk_create(
        (
            Item(
                project=project,
                external_id=item.external_id,
                payload=item.payload,
                group_key=item.group_key,
                source=_source(label, item.line),
            )
            for item in items
        ),
        batch_size=BULK_SIZE,
    )


def _copy_row_head(connection: BaseDatabaseWrapper, project: Project) -> bytes:
    """A binary COPY row's start: the field count and the project's id as its column stores it."""
    column_type = Item._meta.get_field("project").db_type(connection)
    packing = {"bigint": "!iq", "integer": "!ii"}.get(column_type or "")
    if packing is None:
        raise ValueError(f"no binary COPY layout for a project id column of type {column_type!r}")
    return struct.pack("!h", len(ITEM_FIELDS)) + struct.pack(packing, struct.calcsize(packing) - 4, project.pk)


def _copy_field(value: bytes) -> bytes:
    return struct.pack("!i", len(value)) + value


def _copy_timestamp(moment: datetime) -> bytes:
    """timestamptz in binary COPY, exact to the microsecond (no float on the way)."""
    if timezone.is_naive(moment):  # USE_TZ = False: Django's connection reads it in TIME_ZONE
        moment = timezone.make_aware(moment)
    delta = moment - _PG_EPOCH
    return struct.pack("!iq", 8, (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)


def _copy_chunks(head: bytes, items: Iterable[ParsedItem], label: str, now: datetime) -> Iterator[bytes]:
    """Rows in COPY's binary format (length-prefixed values: no escaping on either side, which
    saved PostgreSQL about 0.04 s of a 27.6 MB import), joined into chunks."""
    tail = _copy_timestamp(now)
    rows: list[bytes] = [_COPY_HEADER]
    size = len(_COPY_HEADER)
    for item in items:
        payload = payload_json(item.payload)  # jsonb: its length counts the version byte
        row = b"".join(
            (
                head,
                _copy_field(item.external_id.encode("utf-8")),
                struct.pack("!i", len(payload) + 1),
                _JSONB_VERSION,
                payload,
                _copy_field(item.group_key.encode("utf-8")),
                _copy_field(_source(label, item.line).encode("utf-8")),
                tail,
            )
        )
        rows.append(row)
        size += len(row)
        if size >= COPY_CHUNK_BYTES:
            yield b"".join(rows)
            rows, size = [], 0
    rows.append(_COPY_TRAILER)
    yield b"".join(rows)


class _CopyStream:
    """The file copy_expert reads: the next chunk on each read(). psycopg2 replaces an exception
    raised in read() with its own "COPY from stdin failed"; `error` keeps the original."""

    def __init__(self, chunks: Iterator[bytes]):
        self._chunks = chunks
        self.error: BaseException | None = None

    def read(self, size: int = -1) -> bytes:
        try:
            return next(self._chunks, b"")
        except BaseException as exc:
            self.error = exc
            raise
