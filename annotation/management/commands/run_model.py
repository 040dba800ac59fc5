"""manage.py run_model <project_id> <connection> [--estimate-only] [--prompt FILE] [--yes]"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import ModelConnection, ModelRun
from annotation.services.model_runs import model_run_estimate, model_run_execute

from ._common import project_or_error


class Command(BaseCommand):
    help = (
        "Label a project's items with a model connection of its team (by name): prints the estimate (items, "
        "tokens, cost of the calls still to be made) and asks before spending, then calls the model here, "
        "showing progress. Items already answered under the same prompt are never asked again, so running it "
        "again after a crash or Ctrl-C continues where it stopped (docs/models.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument("connection", help="the connection's name (its team is the project's)")
        parser.add_argument("--estimate-only", action="store_true", help="print the estimate and stop")
        parser.add_argument("--prompt", type=Path, help="a file whose text replaces the instructions sent")
        parser.add_argument("--yes", action="store_true", help="spend without asking")

    def handle(self, *args: Any, project_id: int, connection: str, **options: Any) -> None:
        project = project_or_error(project_id)
        found = ModelConnection.objects.filter(team=project.team, name=connection).first()
        if found is None:
            names = ", ".join(ModelConnection.objects.filter(team=project.team).values_list("name", flat=True))
            raise CommandError(f"The project's team has no model connection {connection!r}; it has: {names or 'none'}.")
        prompt = ""
        if options["prompt"] is not None:
            if not options["prompt"].is_file():
                raise CommandError(f"{options['prompt']}: no such file.")
            prompt = options["prompt"].read_text(encoding="utf-8")
        run = model_run_estimate(project=project, connection=found, prompt=prompt)
        self.stdout.write(estimate_text(run))
        if options["estimate_only"]:
            return
        if not options["yes"] and input("Spend it? [y/N] ").strip().lower() not in ("y", "yes"):
            self.stdout.write("Nothing spent.")
            return
        run = model_run_execute(run=run)
        self.stdout.write(
            f"Run {run.pk}: {run.status}; {run.items_done} of {run.items_total} item(s) answered, "
            f"{run.items_invalid} invalid; spent {run.spent} (estimated {run.estimated_cost})."
        )
        if run.error:
            raise CommandError(run.error)


def estimate_text(run: ModelRun) -> str:
    return (
        f"{run.connection.name} ({run.connection.model} at {run.connection.base_url}) on {run.project}: "
        f"{run.items_total} item(s); still to ask: {run.estimated_input_tokens} input and "
        f"{run.estimated_output_tokens} output token(s), about {run.estimated_cost} "
        f"(at {run.connection.input_price} and {run.connection.output_price} per million tokens)."
    )
