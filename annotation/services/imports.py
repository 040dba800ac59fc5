"""Importing items from a dataset's released file: all or nothing."""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from annotation.kinds import ImportProblem, get_kind
from annotation.models import Item, Project

BULK_SIZE = 2000


@dataclass(frozen=True)
class ImportReport:
    created: int
    duplicates: int
    total: int


def decode_upload(data: bytes, *, max_bytes: int | None = None) -> str:
    """Bytes to text, refusing what cannot be imported faithfully; names the line at fault."""
    limit = settings.IMPORT_MAX_BYTES if max_bytes is None else max_bytes
    if len(data) > limit:
        raise ImportProblem(f"the file is {len(data):,} bytes, over the import limit of {limit:,} bytes (IMPORT_MAX_BYTES)")
    if not data.strip():
        raise ImportProblem("the file is empty")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportProblem(f"not UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {exc.start})", line=line) from None


def items_import(*, project: Project, data: bytes, filename: str = "", max_bytes: int | None = None) -> ImportReport:
    """Parse the whole file, then insert every new item in one transaction.

    Preconditions: none; any bad record raises ImportProblem before anything is written.
    Items already in the project (same external id) are skipped, so a re-import is harmless.
    """
    kind = get_kind(project.kind)
    parsed = kind.parse(decode_upload(data, max_bytes=max_bytes))
    if not parsed:
        raise ImportProblem("the file holds no records")
    seen: set[str] = set()
    unique = []
    for item in parsed:
        if item.external_id not in seen:
            seen.add(item.external_id)
            unique.append(item)
    label = filename or "upload"
    with transaction.atomic():
        existing = set(
            Item.objects.filter(project=project, external_id__in=seen).values_list("external_id", flat=True)
        ) if len(seen) < 20000 else set(Item.objects.filter(project=project).values_list("external_id", flat=True))
        new = [
            Item(
                project=project,
                external_id=item.external_id,
                payload=item.payload,
                group_key=item.group_key,
                source=f"{label}:{item.line}"[:255],
            )
            for item in unique
            if item.external_id not in existing
        ]
        Item.objects.bulk_create(new, batch_size=BULK_SIZE)
    return ImportReport(created=len(new), duplicates=len(parsed) - len(new), total=len(parsed))
