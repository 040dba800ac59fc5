"""`manage.py score_cosimlex (--gold FILE | --project ID) [--subtask1 FILE] [--subtask2 FILE]`."""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Project
from quality.cosimlex import NoData, gold_from_file, project_gold, score_submission
from quality.stats.semeval_scoring import KitFormatError


class Command(BaseCommand):
    help = (
        "Score a system's SemEval-2020 Task 3 submission for one language: subtask 1 (uncentered Pearson "
        "of the change) and subtask 2 (harmonic mean of Pearson and Spearman of the interleaved ratings), "
        "against a kit gold file or a project's cleaned data."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        gold = parser.add_mutually_exclusive_group(required=True)
        gold.add_argument("--gold", type=Path, help="a kit gold file (sim_context1, sim_context2, change)")
        gold.add_argument("--project", type=int, help="a CoSimLex project: its latest quality run is the gold")
        parser.add_argument("--subtask1", type=Path, help="results_subtask1_{lang}.tsv (column: change)")
        parser.add_argument("--subtask2", type=Path, help="results_subtask2_{lang}.tsv (columns: sim_context1, sim_context2)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            gold = self._gold(options)
            scores = score_submission(
                gold,
                subtask1=_read(options["subtask1"]),
                subtask2=_read(options["subtask2"]),
            )
        except (KitFormatError, NoData, statistics.StatisticsError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(scores, indent=2))

    @staticmethod
    def _gold(options: dict[str, Any]):
        if options["gold"] is not None:
            return gold_from_file(_read(options["gold"]))
        project = Project.objects.filter(pk=options["project"], kind="cosimlex").first()
        if project is None:
            raise CommandError(f"no CoSimLex project with id {options['project']}")
        return project_gold(project)


def _read(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
