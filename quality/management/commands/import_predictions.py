"""manage.py import_predictions <project_id> <file> [--model NAME]"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import ImportProblem
from annotation.models import Project
from quality.services.predictions import predictions_import


class Command(BaseCommand):
    help = (
        "Import a model's predictions beside a project's items, as one more annotator the quality report "
        "scores against the humans' labels (never mixed into them). JSON Lines or a JSON array: each record "
        "the item's \"id\" as imported and label fields with the model's values. All or nothing: a bad record "
        "imports nothing and the error names its line and field. Importing a model's name again replaces its "
        "predictions. A task file project also takes a Label Studio export: each task's predictions as their "
        "model_version's (--model, when given, names them all)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int, help="Id of the project whose items were predicted.")
        parser.add_argument("file", type=Path, help="Path of the predictions (.jsonl or .json).")
        parser.add_argument(
            "--model",
            default="",
            help="The model's name, e.g. \"gpt-x-zero-shot\" (needed but for a Label Studio export's model_version).",
        )

    def handle(self, *args: Any, project_id: int, file: Path, model: str, **options: Any) -> None:
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            raise CommandError(f"no project with id {project_id}")
        if not file.is_file():
            raise CommandError(f"{file}: no such file.")
        try:
            report = predictions_import(project=project, data=file.read_bytes(), model=model, filename=file.name)
        except ImportProblem as exc:
            raise CommandError(f"{file}: {exc}. Nothing was imported.") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"{project.name}: {report.created} predictions of {report.model} imported"
                + (f" ({report.replaced} earlier ones replaced)." if report.replaced else ".")
                + (f" Predictions naming no model were named {report.unnamed!r}." if report.unnamed else "")
                + " Run quality to score them."
            )
        )
