"""manage.py check_span_offsets <project_id> [--repair]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from annotation.services.span_offsets import REPAIRABLE, span_offsets_check

from ._common import project_or_error


class Command(BaseCommand):
    help = (
        "Find marked spans stored with the offsets pages counted before they counted code points (UTF-16 "
        "units of the shown text: wrong after an emoji or a CRLF). Lists each span that is repairable (its "
        "stored reading cannot be a page's, the old page's can), ambiguous (check by hand) or broken. With "
        "--repair, rewrites the repairable ones' offsets and text, in one transaction."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument("--repair", action="store_true", help="Rewrite the repairable spans.")

    def handle(self, *args: Any, project_id: int, repair: bool, **options: Any) -> None:
        project = project_or_error(project_id)
        findings = span_offsets_check(project=project, repair=repair)
        for finding in findings:
            self.stdout.write(f"{finding.verdict}: {finding.describe()}")
        repairable = sum(f.verdict == REPAIRABLE for f in findings)
        others = len(findings) - repairable
        if not findings:
            self.stdout.write("Every marked span reads the same under both offset conventions, or only as now.")
        elif repair:
            self.stdout.write(f"{repairable} span(s) repaired; {others} left to check by hand.")
        else:
            self.stdout.write(f"{repairable} span(s) repairable (run again with --repair); {others} to check by hand.")
