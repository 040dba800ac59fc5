"""Importing items from a dataset's released file: all or nothing. The rows are written by the
fastest way the database offers (`item_inserts`), while the file is still being parsed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.utils import timezone

from annotation.kinds import ImportProblem, ParsedItem, TaskKind, kind_of
from annotation.models import Item, Project

from .import_checks import Tally, new_items, source_label
from .imported_annotations import imported_annotations_create
from .item_inserts import inserter


@dataclass(frozen=True)
class ImportReport:
    created: int
    duplicates: int
    total: int
    #: records skipped because their id was taken by different content (skip_conflicts only)
    conflicts: int = 0
    #: annotations made elsewhere that the file carried (Label Studio's), written as completed
    #: annotations, and those skipped (cancelled)
    annotations: int = 0
    skipped_annotations: int = 0
    #: of `annotations`, those written onto items the project had already (a re-import's new ones)
    merged_annotations: int = 0
    #: keys of the file's records not read, as carrying no data (a Label Studio task's `allow_skip`...)
    ignored_keys: tuple[str, ...] = ()

    def annotations_note(self) -> str:
        """The imported annotations in words for a message ("" when the file carried none)."""
        ignored = f" Not read (no data): {', '.join(self.ignored_keys)}." if self.ignored_keys else ""
        if not (self.annotations or self.skipped_annotations):
            return ignored
        skipped = f"; {self.skipped_annotations} cancelled ones were skipped" if self.skipped_annotations else ""
        merged = f", {self.merged_annotations} of them onto items already imported" if self.merged_annotations else ""
        return f" {self.annotations} annotations were imported as completed annotations{merged}{skipped}.{ignored}"


def decode_upload(data: bytes, *, max_bytes: int | None = None) -> str:
    """Bytes to text, refusing what cannot be imported faithfully; names the line at fault."""
    limit = settings.IMPORT_MAX_BYTES if max_bytes is None else max_bytes
    if len(data) > limit:
        raise ImportProblem(
            f"the file is {len(data):,} bytes, over the import limit of {limit:,} bytes (IMPORT_MAX_BYTES)"
        )
    if not data or data.isspace():  # not data.strip(): that copies the whole file
        raise ImportProblem("the file is empty")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportProblem(f"not UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {exc.start})", line=line) from None


def items_import(
    *, project: Project, data: bytes, filename: str = "", max_bytes: int | None = None, skip_conflicts: bool = False
) -> ImportReport:
    """Insert every new item of the file in one transaction; a bad record anywhere imports nothing.

    Preconditions: none; a bad record raises ImportProblem (naming its line and field) and the
    transaction is rolled back. Items already in the project (same external id, same content)
    are skipped, so a re-import is harmless; the same id with different content (in the project
    or earlier in the file) refuses the import, or with `skip_conflicts` is skipped and counted.
    Annotations the file carries for its new items (Label Studio's) are written in the same
    transaction (`imported_annotations`).
    """
    kind = kind_of(project)
    text = decode_upload(data, max_bytes=max_bytes)
    alias = router.db_for_write(Item, instance=project)
    connection = connections[alias]
    insert, streams = inserter(connection)
    # SQLite and PostgreSQL parse while the rows are written; elsewhere the whole file is
    # parsed before the transaction.
    parsed = None if streams else _parse_all(kind, text)
    tally = Tally()
    with transaction.atomic(using=alias):
        # a project's first import (the usual case) needs no look-up of the ids it holds
        fresh = not Item.objects.using(alias).filter(project=project).exists()
        existing: dict[str, Any] = {}
        if not fresh:
            if parsed is None:
                parsed = _parse_all(kind, text)  # the existing ids to skip depend on the file's ids
            existing = _existing_payloads(project, parsed, alias)
        items = kind.iter_parse(text) if parsed is None else parsed
        fresh_items = new_items(items, existing, tally, skip_conflicts=skip_conflicts)
        insert(connection, project, fresh_items, source_label(filename), timezone.now())
        if not tally.total:
            raise ImportProblem("the file holds no records")
        written = imported_annotations_create(project=project, carried=tally.carried, alias=alias)
    return ImportReport(
        created=tally.created,
        duplicates=tally.total - tally.created - tally.conflicts,
        total=tally.total,
        conflicts=tally.conflicts,
        annotations=len(written),
        skipped_annotations=tally.skipped_annotations,
        merged_annotations=len([item for item in written if item in existing]),
        ignored_keys=tuple(sorted(tally.ignored_keys)),
    )


def _parse_all(kind: TaskKind, text: str) -> list[ParsedItem]:
    parsed = kind.parse(text)
    if not parsed:
        raise ImportProblem("the file holds no records")
    return parsed


def _existing_payloads(project: Project, parsed: list[ParsedItem], alias: str) -> dict[str, Any]:
    """id -> payload of the project's items that the file's ids name (to tell a re-import from a conflict)."""
    ids = {item.external_id for item in parsed}
    items = Item.objects.using(alias).filter(project=project)
    if len(ids) < 20000:  # beyond that, reading all the project's items beats a huge IN list
        items = items.filter(external_id__in=ids)
    return {
        external_id: payload
        for external_id, payload in items.values_list("external_id", "payload")
        if external_id in ids
    }
