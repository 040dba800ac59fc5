"""manage.py create_project --name NAME (--kind KIND | --task FILE) [--language LANG] [--team TEAM]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotation.kinds import TaskFileError, UnknownKind, kind_choices
from annotation.models import Team
from annotation.services.projects import project_create
from annotation.services.teams import team_ensure

#: the team a project goes to when the deployment has none yet (the migration's name too)
DEFAULT_TEAM = "Default team"


class Command(BaseCommand):
    help = "Create an annotation project of one task kind, or from a task file; prints its id for import_items."

    def add_arguments(self, parser: CommandParser) -> None:
        kinds = ", ".join(slug for slug, _ in kind_choices())
        parser.add_argument("--name", required=True, help="A name researchers will recognise.")
        task = parser.add_mutually_exclusive_group(required=True)
        task.add_argument("--kind", help=f"Task kind slug; one of: {kinds}.")
        task.add_argument("--task", metavar="FILE", help="A task file (YAML or JSON, docs/task-files.md).")
        parser.add_argument("--language", default="en", help="Language of the annotator pages (default: en).")
        parser.add_argument("--instructions", default="", help="Instructions text (default: the kind's own).")
        parser.add_argument(
            "--team",
            default=None,
            help=f"The team whose members see the project (made when missing). Default: the deployment's only "
            f"team, or “{DEFAULT_TEAM}” when there is none yet; with several teams it must be given.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        task_file = self._read(options["task"]) if options["task"] else ""
        try:
            with transaction.atomic():  # an unknown kind or a bad file makes no team either
                team = self._team(options["team"])
                project = project_create(
                    name=options["name"],
                    kind=options["kind"] or "",
                    task_file=task_file,
                    team=team,
                    language=options["language"],
                    instructions=options["instructions"],
                )
        except UnknownKind as exc:
            raise CommandError(str(exc)) from None
        except TaskFileError as exc:
            raise CommandError(f"{options['task']} is not a valid task file; nothing was created:\n{exc}") from None
        self.stdout.write(self.style.SUCCESS(f"Created project {project.pk}: {project} in team “{team}”"))

    @staticmethod
    def _read(path: str) -> str:
        try:
            with open(path, encoding="utf-8-sig") as file:
                return file.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read the task file {path}: {exc}") from None

    @staticmethod
    def _team(name: str | None) -> Team:
        if name:
            return team_ensure(name=name)
        teams = list(Team.objects.order_by("name")[:21])
        if not teams:
            return team_ensure(name=DEFAULT_TEAM)
        if len(teams) == 1:
            return teams[0]
        raise CommandError("Several teams: say which one with --team (" + ", ".join(t.name for t in teams[:20]) + ").")
