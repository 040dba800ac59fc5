"""A Hub folder as one zip file: what an export job keeps and a browser downloads (a folder is
no download). The zip holds the folder's files at its root, so unpacking it gives the folder."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from annotation.models import Project

from ..writers import Format
from . import HubFolder, HubOptions, hub_folder_write
from .splits import item_splits

#: the dataset name and file format of a Hub folder's export job
HUB_DATASET = "hub"
HUB_ARCHIVE = Format("zip", "application/zip", "zip")


def hub_check(project: Project, options: HubOptions) -> None:
    """Raise now what writing would raise about the split rule (SplitError), before a job is queued."""
    item_splits(project, options.plan)


def hub_archive_write(*, project: Project, target: Path, options: HubOptions) -> HubFolder:
    """Write the folder in a temporary directory and zip it into `target`; Parquet is compressed
    already, so the files are stored, not deflated again."""
    with tempfile.TemporaryDirectory(prefix="hub-") as tmp:
        folder = hub_folder_write(project=project, directory=Path(tmp), options=options)
        with zipfile.ZipFile(target, "w") as archive:
            for path in sorted(Path(tmp).rglob("*")):
                if path.is_file():
                    deflate = path.suffix != ".parquet"
                    kind = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
                    archive.write(path, path.relative_to(tmp).as_posix(), compress_type=kind)
    return folder
