"""Importing items from a dataset's released file: all or nothing.

Items are written without the ORM (bulk_create spent 0.2-0.45 s building Item instances and
encoding payloads for a 10,000-item file, see bench/README.md): one executemany on SQLite,
COPY FROM STDIN on PostgreSQL, fed while the file is still being parsed; other databases use
bulk_create.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable, Iterator

from django.conf import settings
from django.db import connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from annotation.kinds import ImportProblem, ParsedItem, TaskKind, get_kind
from annotation.kinds.formats import payload_json
from annotation.models import Item, Project

BULK_SIZE = 2000
#: COPY sends rows in chunks of about this size; PostgreSQL stores one while Python parses on
COPY_CHUNK_BYTES = 256 * 1024
#: every column an import writes (all of Item's but the id), in the order rows list them
ITEM_FIELDS = ("project", "external_id", "payload", "group_key", "source", "created_at")
#: COPY's text format gives these characters a meaning; in a value they are escaped
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})

Inserter = Callable[[BaseDatabaseWrapper, Project, Iterable[ParsedItem], str, datetime], None]


@dataclass(frozen=True)
class ImportReport:
    created: int
    duplicates: int
    total: int


@dataclass
class _Tally:
    total: int = 0
    created: int = 0


def decode_upload(data: bytes, *, max_bytes: int | None = None) -> str:
    """Bytes to text, refusing what cannot be imported faithfully; names the line at fault."""
    limit = settings.IMPORT_MAX_BYTES if max_bytes is None else max_bytes
    if len(data) > limit:
        raise ImportProblem(f"the file is {len(data):,} bytes, over the import limit of {limit:,} bytes (IMPORT_MAX_BYTES)")
    if not data or data.isspace():  # not data.strip(): that copies the whole file
        raise ImportProblem("the file is empty")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportProblem(f"not UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {exc.start})", line=line) from None


def items_import(*, project: Project, data: bytes, filename: str = "", max_bytes: int | None = None) -> ImportReport:
    """Insert every new item of the file in one transaction; a bad record anywhere imports nothing.

    Preconditions: none; a bad record raises ImportProblem (naming its line and field) and the
    transaction is rolled back. Items already in the project (same external id) are skipped,
    so a re-import is harmless.
    """
    kind = get_kind(project.kind)
    text = decode_upload(data, max_bytes=max_bytes)
    alias = router.db_for_write(Item, instance=project)
    connection = connections[alias]
    insert, streams = _inserter(connection)
    # PostgreSQL parses while COPY writes; elsewhere the whole file is parsed before the
    # transaction, which on SQLite holds the database's one write lock.
    parsed = None if streams else _parse_all(kind, text)
    tally = _Tally()
    with transaction.atomic(using=alias):
        # a project's first import (the usual case) needs no look-up of the ids it holds
        fresh = not Item.objects.using(alias).filter(project=project).exists()
        if parsed is None and not fresh:
            parsed = _parse_all(kind, text)  # the existing ids to skip depend on the file's ids
        existing = set() if fresh else _existing_ids(project, parsed, alias)
        items = kind.iter_parse(text) if parsed is None else parsed
        insert(connection, project, _new_items(items, existing, tally), filename or "upload", timezone.now())
        if not tally.total:
            raise ImportProblem("the file holds no records")
    return ImportReport(created=tally.created, duplicates=tally.total - tally.created, total=tally.total)


def _parse_all(kind: TaskKind, text: str) -> list[ParsedItem]:
    parsed = kind.parse(text)
    if not parsed:
        raise ImportProblem("the file holds no records")
    return parsed


def _existing_ids(project: Project, parsed: list[ParsedItem], alias: str) -> set[str]:
    ids = {item.external_id for item in parsed}
    items = Item.objects.using(alias).filter(project=project)
    if len(ids) < 20000:  # beyond that, reading all the project's ids beats a huge IN list
        items = items.filter(external_id__in=ids)
    return set(items.values_list("external_id", flat=True))


def _new_items(items: Iterable[ParsedItem], existing: set[str], tally: _Tally) -> Iterator[ParsedItem]:
    """The items to create: neither in the project already nor earlier in the file; counts all."""
    seen: set[str] = set()
    for item in items:
        tally.total += 1
        if item.external_id in existing or item.external_id in seen:
            continue
        seen.add(item.external_id)
        tally.created += 1
        yield item


def _inserter(connection: BaseDatabaseWrapper) -> tuple[Inserter, bool]:
    """How items reach the table, and whether it can take them while the file is being parsed."""
    if connection.vendor == "sqlite":
        return _insert_executemany, False
    if connection.vendor == "postgresql" and connection.Database.__name__ == "psycopg2":
        return _insert_copy, True
    return _insert_orm, False


def _source(label: str, line: int) -> str:
    return f"{label}:{line}"[:255]


def _columns(connection: BaseDatabaseWrapper) -> str:
    return ", ".join(connection.ops.quote_name(Item._meta.get_field(name).column) for name in ITEM_FIELDS)


def _insert_executemany(connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem],
                        label: str, now: datetime) -> None:
    """SQLite: one prepared INSERT run for every row, with the values Django would write."""
    table = connection.ops.quote_name(Item._meta.db_table)
    sql = f"INSERT INTO {table} ({_columns(connection)}) VALUES (%s, %s, %s, %s, %s, %s)"
    created_at = connection.ops.adapt_datetimefield_value(now)
    rows = (
        (project.pk, item.external_id, payload_json(item.payload).decode("utf-8"), item.group_key,
         _source(label, item.line), created_at)
        for item in items
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _insert_copy(connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem],
                 label: str, now: datetime) -> None:
    """PostgreSQL: COPY FROM STDIN, reading `items` as PostgreSQL asks for more rows.

    An exception while reading (a bad line) makes psycopg2 abort the COPY and raise its own
    error instead; the original is raised here, and the caller's transaction rolls back.
    """
    table = connection.ops.quote_name(Item._meta.db_table)
    stream = _CopyStream(_copy_chunks(project, items, label, now))
    with connection.cursor() as cursor, connection.wrap_database_errors:
        try:
            cursor.copy_expert(f"COPY {table} ({_columns(connection)}) FROM STDIN", stream)
        except Exception:
            if stream.error is None:
                raise
            raise stream.error from None


def _insert_orm(connection: BaseDatabaseWrapper, project: Project, items: Iterable[ParsedItem],
                label: str, now: datetime) -> None:
    """Other databases: bulk_create (created_at is then set by the field itself)."""
    Item.objects.using(connection.alias).bulk_create(
        (
            Item(project=project, external_id=item.external_id, payload=item.payload,
                 group_key=item.group_key, source=_source(label, item.line))
            for item in items
        ),
        batch_size=BULK_SIZE,
    )


def _copy_text(value: str) -> bytes:
    return value.translate(_COPY_ESCAPES).encode("utf-8")


def _copy_chunks(project: Project, items: Iterable[ParsedItem], label: str, now: datetime) -> Iterator[bytes]:
    """Rows in COPY's text format (tab-separated, backslash escapes), joined into chunks."""
    head = b"%d\t" % project.pk
    tail = f"\t{now.isoformat()}\n".encode("ascii")
    rows: list[bytes] = []
    size = 0
    for item in items:
        # JSON text holds no raw tab, CR or LF (they are escaped); its backslashes are doubled
        payload = payload_json(item.payload).replace(b"\\", b"\\\\")
        row = b"".join((head, _copy_text(item.external_id), b"\t", payload, b"\t", _copy_text(item.group_key),
                        b"\t", _copy_text(_source(label, item.line)), tail))
        rows.append(row)
        size += len(row)
        if size >= COPY_CHUNK_BYTES:
            yield b"".join(rows)
            rows, size = [], 0
    if rows:
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
