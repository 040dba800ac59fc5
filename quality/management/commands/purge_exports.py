"""`manage.py purge_exports`: delete export files older than EXPORT_KEEP_DAYS (what beat does hourly)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from quality.services.exports import export_jobs_purge


class Command(BaseCommand):
    help = "Delete the files of export jobs finished more than EXPORT_KEEP_DAYS days ago."

    def handle(self, *args: Any, **options: Any) -> None:
        purged = export_jobs_purge()
        listed = f": {', '.join(map(str, purged))}" if purged else ""
        self.stdout.write(f"expired {len(purged)} export job(s){listed}")
