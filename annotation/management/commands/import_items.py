"""manage.py import_items <project_id> <file>"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import ImportProblem
from annotation.services.uploads import items_import_file

from ._common import project_or_error


class Command(BaseCommand):
    help = (
        "Import items into a project from the dataset's released file. All or nothing: a bad "
        "record imports nothing and the error names its line and field. Items already in the "
        "project are skipped, so importing the same file again is harmless."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int, help="Id of the project to import into.")
        parser.add_argument("file", type=Path, help="Path of the released file, in the format of the project's kind.")
        parser.add_argument(
            "--skip-conflicts",
            action="store_true",
            help="Skip records whose id the project already has with different content "
            "(default: such a record refuses the import).",
        )

    def handle(self, *args: Any, project_id: int, file: Path, **options: Any) -> None:
        project = project_or_error(project_id)
        if not file.is_file():
            raise CommandError(f"{file}: no such file.")
        try:
            with file.open("rb") as handle:
                report = items_import_file(
                    project=project,
                    fileobj=handle,
                    size=file.stat().st_size,
                    filename=file.name,
                    skip_conflicts=options["skip_conflicts"],
                )
        except ImportProblem as exc:
            raise CommandError(f"{file}: {exc}. Nothing was imported.") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"{project.name}: {report.created} new items imported, {report.duplicates} already "
                f"present (skipped), {report.total} records in {file.name}.{report.annotations_note()}"
            )
        )
