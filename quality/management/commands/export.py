"""`manage.py export <project_id> --dataset raw|clean|items|... --format csv|tsv|jsonl [--output FILE]`."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Project
from quality.exports import DATASETS, FORMATS, ExportUnavailable, UnknownExport, export_open


class Command(BaseCommand):
    help = "Stream one of a project's datasets as CSV, TSV or JSONL to a file or to stdout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument(
            "--dataset", default="raw",
            help=f"{', '.join(DATASETS)}, or a format of the project's kind (CoSimLex: kit_data, kit_gold)",
        )
        parser.add_argument("--format", choices=list(FORMATS), default="csv", dest="fmt")
        parser.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")

    def handle(self, *args: Any, project_id: int, dataset: str, fmt: str, output: Path | None, **options: Any) -> None:
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            raise CommandError(f"no project with id {project_id}")
        try:
            export = export_open(project=project, dataset=dataset, fmt=fmt)
        except (ExportUnavailable, UnknownExport) as exc:
            raise CommandError(str(exc)) from None
        if output is None:
            self._to_stdout(export.chunks)
            return
        with output.open("wb") as handle:
            for chunk in export.chunks:
                handle.write(chunk)
        self.stderr.write(f"wrote {output}")

    def _to_stdout(self, chunks) -> None:
        binary = getattr(self.stdout._out, "buffer", None)  # the real stdout: pass bytes straight on
        try:
            for chunk in chunks:
                if binary is not None:
                    binary.write(chunk)
                else:
                    self.stdout.write(chunk.decode("utf-8"), ending="")
            if binary is not None:
                binary.flush()
        except BrokenPipeError:  # `| head`: the reader has all it wanted
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
