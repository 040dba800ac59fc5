"""`manage.py cosimlex_summary [FILE ...] [--project ID ...]`: the CoSimLex paper's Table 1."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import ImportProblem
from annotation.models import Project
from annotation.services.imports import decode_upload
from quality.cosimlex import TABLE1_COLUMNS, NoData, project_summary, release_file_summary


def format_table1(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """A plain-text Table 1: one line per dataset; shares as percentages, as the paper prints them."""
    header = ["dataset", *[label for _, label in TABLE1_COLUMNS]]
    lines = [header]
    for name, summary in rows:
        cells = [name]
        for key, _ in TABLE1_COLUMNS:
            value = summary.get(key)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append("–")
            elif key == "n_pairs":
                cells.append(str(value))
            elif key.startswith("share_"):
                cells.append(f"{value * 100:.0f} %")
            else:
                cells.append(f"{value:.2f}")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)


class Command(BaseCommand):
    help = (
        "Print the CoSimLex paper's Table 1 (pairs, mean similarity, mean standard deviation, mean "
        "absolute change, share of pairs with p < 0.1 and p < 0.05) for release files and for projects' "
        "cleaned data (their latest quality run)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", type=Path, help="cosimlex_{lang}.csv release files")
        parser.add_argument("--project", type=int, action="append", default=[], help="a CoSimLex project id")
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")

    def handle(self, *args: Any, files: list[Path], project: list[int], **options: Any) -> None:
        if not files and not project:
            raise CommandError("name at least one release file or --project")
        rows: list[tuple[str, dict[str, Any]]] = []
        for path in files:
            try:
                rows.append((path.name, release_file_summary(decode_upload(path.read_bytes()))))
            except OSError as exc:
                raise CommandError(f"{path}: {exc.strerror}") from None
            except ImportProblem as exc:
                raise CommandError(f"{path}: {exc}") from None
        for project_id in project:
            found = Project.objects.filter(pk=project_id, kind="cosimlex").first()
            if found is None:
                raise CommandError(f"no CoSimLex project with id {project_id}")
            try:
                rows.append((f"project {found.pk}: {found.name}", project_summary(found)))
            except NoData as exc:
                raise CommandError(f"project {project_id}: {exc}") from None
        if options["json"]:
            self.stdout.write(json.dumps({name: summary for name, summary in rows}, indent=2, allow_nan=False, default=_none))
        else:
            self.stdout.write(format_table1(rows))


def _none(value: Any) -> None:
    return None
