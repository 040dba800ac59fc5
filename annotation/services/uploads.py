"""Importing an uploaded or local file without reading an oversized one into memory first."""

from __future__ import annotations

from typing import BinaryIO

from django.conf import settings

from annotation.kinds import ImportProblem
from annotation.models import Project

from .imports import ImportReport, items_import


class ImportTooLarge(ImportProblem):
    """The file is over IMPORT_MAX_BYTES: refused by its size before anything is read."""


def items_import_file(
    *, project: Project, fileobj: BinaryIO, size: int, filename: str = "", skip_conflicts: bool = False
) -> ImportReport:
    """Refuse a file over IMPORT_MAX_BYTES by its size alone, then import it all or nothing.

    The admin, the API and the import command all come through here, so their limits agree.
    """
    limit = settings.IMPORT_MAX_BYTES
    if size > limit:
        raise ImportTooLarge(f"the file is {size:,} bytes, over the import limit of {limit:,} bytes (IMPORT_MAX_BYTES)")
    return items_import(project=project, data=fileobj.read(), filename=filename, skip_conflicts=skip_conflicts)
