"""manage.py create_project --name NAME --kind KIND [--language LANG]"""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import UnknownKind, kind_choices
from annotation.services.projects import project_create


class Command(BaseCommand):
    help = "Create an annotation project of one task kind; prints its id for import_items."

    def add_arguments(self, parser: CommandParser) -> None:
        kinds = ", ".join(slug for slug, _ in kind_choices())
        parser.add_argument("--name", required=True, help="A name researchers will recognise.")
        parser.add_argument("--kind", required=True, help=f"Task kind slug; one of: {kinds}.")
        parser.add_argument("--language", default="en", help="Language of the annotator pages (default: en).")
        parser.add_argument("--instructions", default="", help="Instructions text (default: the kind's own).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            project = project_create(
                name=options["name"],
                kind=options["kind"],
                language=options["language"],
                instructions=options["instructions"],
            )
        except UnknownKind as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Created project {project.pk}: {project}"))
