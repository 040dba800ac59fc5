"""`manage.py run_quality <project_id> [--set key=value ...]`: a new quality run, now."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import kind_of
from annotation.models import Project
from quality.report.context import AGREEMENT_HEADERS, agreement_rows, headline_rows
from quality.selectors import annotator_decisions, run_aggregation, run_agreement, run_headline, run_with_counts
from quality.services.runs import quality_run_create


def parse_setting(text: str) -> tuple[str, Any]:
    """`key=value`, the value read as JSON when it is JSON (0.5, true) and as text otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise CommandError(f"--set expects key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


class Command(BaseCommand):
    help = "Run the project's quality rules and store every decision with its reasons (older runs stay)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            dest="overrides",
            help="override a quality setting for this run, e.g. --set min_accuracy=0.5",
        )

    def handle(self, *args: Any, project_id: int, overrides: list[str], **options: Any) -> None:
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            raise CommandError(f"no project with id {project_id}")
        settings = dict(parse_setting(text) for text in overrides)
        unknown = sorted(set(settings) - set(kind_of(project).settings_for(None)))
        if unknown:
            raise CommandError(f"unknown setting(s): {', '.join(unknown)}")
        problems = kind_of(project).settings_problems(settings)
        if problems:
            raise CommandError("; ".join(problems))
        run = quality_run_create(project=project, overrides=settings)
        self._print(run_with_counts(run.pk))

    def _print(self, run) -> None:
        self.stdout.write(self.style.SUCCESS(f"Quality run {run.number} (id {run.pk}): {run.status}"))
        self.stdout.write(f"responses kept: {run.n_responses_kept} of {run.n_responses}")
        self.stdout.write(f"annotators kept: {run.n_annotators_kept} of {run.n_annotators}")
        for decision in annotator_decisions(run).filter(keep=False):
            self.stdout.write(f"  dropped {decision.annotator.external_id}: {'; '.join(decision.reasons)}")
        for label, value in headline_rows(run_headline(run))[2:]:
            self.stdout.write(f"{label}: {value}")
        rows = agreement_rows(run_agreement(run))
        if rows:
            self.stdout.write("agreement (on the kept annotations):")
            self.stdout.write(
                format_table(
                    AGREEMENT_HEADERS,
                    [
                        (
                            r["name"],
                            r["level"],
                            str(r["n_items"]),
                            r["observed"],
                            r["cohen"],
                            r["fleiss"],
                            r["alpha"],
                            r["interval"],
                        )
                        for r in rows
                    ],
                )
            )
        for name, summary in run_aggregation(run).items():
            self.stdout.write(
                f"aggregation {name}: {summary['n_items']} items, {summary['majority_ties']} majority ties, "
                f"Dawid-Skene agrees with the majority on {summary['majority_agrees_with_ds']}, "
                f"mean posterior {summary['ds_mean_posterior']:.3f}"
            )


def format_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """Plain-text columns, padded to the widest cell."""
    lines = [list(headers), *[list(row) for row in rows]]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines)
