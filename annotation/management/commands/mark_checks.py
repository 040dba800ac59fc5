"""manage.py mark_checks <project_id> <file>"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.services.checks import CheckFileError, check_lines, items_mark_checks

from ._common import project_or_error


class Command(BaseCommand):
    help = (
        "Make items of a project check items (attention or gold items) with their expected answers, from a "
        'JSON Lines file of {"external_id": ..., "expect": {label field: expected}, "explain": "why"} (the '
        "explanation is optional and shown after a training item; an expect of null makes an item ordinary "
        "again). A batch whose study file has `attention` mixes them into the work, one with `training` shows "
        "them first with feedback (docs/study-checks.md). All or nothing: each mistake is named with its line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, project_id: int, file: Path, **options: Any) -> None:
        project = project_or_error(project_id)
        if not file.is_file():
            raise CommandError(f"{file}: no such file.")
        try:
            count = items_mark_checks(project=project, lines=check_lines(file.read_text(encoding="utf-8")))
        except CheckFileError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{count} item(s) marked.")
