"""manage.py release_abandoned [--batch ID]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from annotation.services.assignments import assignments_release_abandoned

from ._common import batch_or_error


class Command(BaseCommand):
    help = (
        "Release assignments left idle longer than their batch allows, so other annotators can "
        "take them (the Celery beat sweep does this periodically)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=None, help="Only this batch (default: every open batch).")

    def handle(self, *args: Any, **options: Any) -> None:
        batch = batch_or_error(options["batch"]) if options["batch"] is not None else None
        released = assignments_release_abandoned(batch=batch)
        self.stdout.write(self.style.SUCCESS(f"Released {released} abandoned assignment(s)."))
