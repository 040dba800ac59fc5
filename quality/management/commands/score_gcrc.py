"""`manage.py score_gcrc PRED GOLD [--json]`: score a GCRC prediction file against a gold file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quality.stats.gcrc import GcrcFormatError, items_by_id, score

ROWS = (
    ("Task1_Acc", "answer accuracy", "questions"),
    ("Task2_F1", "supporting facts, character F1", "sf_options"),
    ("Task3_Acc", "error reasons, accuracy", "er_options"),
)


class Command(BaseCommand):
    help = (
        "Score a GCRC prediction file against a gold file, both in the released JSON format "
        '({"data": [{id, answer, evidences, error_type, ...}]}), as the CCL2022 task scores: answer '
        "accuracy, supporting-fact character F1, error-reason accuracy and their mean."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("pred", type=Path, help="the predictions (released format)")
        parser.add_argument("gold", type=Path, help="the gold labels (released format)")
        parser.add_argument("--json", action="store_true", help="print the scores as JSON (eval.py's keys)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            scores = score(items_by_id(_read(options["pred"]), "PRED"), items_by_id(_read(options["gold"]), "GOLD"))
        except GcrcFormatError as exc:
            raise CommandError(str(exc)) from None
        figures = scores.as_dict()
        if options["json"]:
            self.stdout.write(json.dumps(figures, indent=2))
            return
        for key, words, count in ROWS:
            value = figures[key]
            shown = "n/a (the gold file has no such labels)" if value is None else f"{value:.4f} over {figures[count]}"
            self.stdout.write(f"{key:<10} {shown}  ({words})")
        overall = figures["Score"]
        self.stdout.write(f"{'Score':<10} {'n/a' if overall is None else f'{overall:.4f}'}  (mean of the three)")
        if figures["missing"]:
            self.stdout.write(f"{figures['missing']} gold question(s) have no prediction; they score 0.")


def _read(path: Path) -> Any:
    """The decoded file; a BOM and CRLF line ends are fine."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not UTF-8 text ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
