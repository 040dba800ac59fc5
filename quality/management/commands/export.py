"""`manage.py export <project_id> --dataset raw|clean|items|... --format csv|tsv|jsonl [--output FILE]
(`--dataset label_studio`: Label Studio's JSON, written as json)
[--spreadsheet-safe] [--item-text] [--job]`, or `--dataset hub -o DIR [--split-by batch|key ...]`:
a folder for the Hugging Face Hub (docs/publishing.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Project
from quality.exports import DATASETS, FORMATS, ExportUnavailable, Options, UnknownExport, export_open
from quality.exports.hub import HubOptions, SplitError, SplitPlan, hub_folder_write
from quality.models import ExportJob
from quality.services.exports import export_job_create, export_job_path, hub_export_job_create


class Command(BaseCommand):
    help = (
        "Stream one of a project's datasets as CSV, TSV or JSONL to a file or to stdout, or (--job) "
        "record an export job that writes it under EXPORT_ROOT, as the admin and the API do."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument(
            "--dataset",
            default="raw",
            help=f"{', '.join(DATASETS)}, a further released format of the project's kind, or hub: a folder "
            "for the Hugging Face Hub (Parquet files and a dataset card; -o names the folder)",
        )
        parser.add_argument(
            "--format",
            choices=list(FORMATS),
            default=None,
            dest="fmt",
            help="csv, tsv or jsonl for a table (default csv); json for label_studio (its only format)",
        )
        parser.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")
        parser.add_argument(
            "--spreadsheet-safe",
            action="store_true",
            help="CSV/TSV: prefix text cells starting with =, +, -, @, tab or CR with ' "
            "(default: every cell exactly as stored)",
        )
        parser.add_argument("--item-text", action="store_true", help="raw and clean: add the item's text")
        parser.add_argument(
            "--job",
            action="store_true",
            help="record an export job (listed in the admin, kept EXPORT_KEEP_DAYS days) instead",
        )

        hub = parser.add_argument_group("hub", "--dataset hub: splits, licence and task of the dataset card")
        hub.add_argument("--split-by", choices=["batch", "key"], default="", help="split items by batch or item key")
        hub.add_argument("--split-key", default="", help="the item key --split-by key reads (implies it)")
        hub.add_argument(
            "--split",
            action="append",
            default=[],
            metavar="NAME=VALUES",
            help="a split and its batch ids or key values, comma-separated (repeatable), e.g. test=5",
        )
        hub.add_argument("--split-default", default="train", help="the split of items no --split names (train)")
        hub.add_argument("--license", default="other", help="the card's licence, a Hub licence id (other)")
        hub.add_argument(
            "--task-category",
            action="append",
            default=[],
            help="the card's task_categories (repeatable; default: from the task's label fields)",
        )

    def handle(
        self, *args: Any, project_id: int, dataset: str, fmt: str | None, output: Path | None, **options: Any
    ) -> None:
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            raise CommandError(f"no project with id {project_id}")
        if dataset == "hub":
            self._hub(project, output, options)
            return
        chosen = Options(spreadsheet_safe=options["spreadsheet_safe"], item_text=options["item_text"])
        try:
            if options["job"]:
                self._as_job(project, dataset, fmt, chosen)
                return
            export = export_open(project=project, dataset=dataset, fmt=fmt, options=chosen)
        except (ExportUnavailable, UnknownExport) as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"cells: {export.cells}")
        if output is None:
            self._to_stdout(export.chunks)
            return
        with output.open("wb") as handle:
            for chunk in export.chunks:
                handle.write(chunk)
        self.stderr.write(f"wrote {output}")

    def _hub(self, project: Project, output: Path | None, options: dict[str, Any]) -> None:
        if output is None and not options["job"]:
            raise CommandError("--dataset hub writes a folder: name it with -o DIR (or --job: a zip of it)")
        if output is not None and output.exists() and not output.is_dir():
            raise CommandError(f"{output} is a file; a Hub folder needs a directory")
        try:
            plan = SplitPlan.parse(
                by=options["split_by"],
                key=options["split_key"],
                specs=options["split"],
                default=options["split_default"],
            )
            chosen = HubOptions(plan=plan, license=options["license"], task_categories=options["task_category"])
            if output is None:
                self._report_job(hub_export_job_create(project=project, options=chosen))
                return
            folder = hub_folder_write(project=project, directory=output, options=chosen)
        except (ExportUnavailable, SplitError) as exc:
            raise CommandError(str(exc)) from None
        for config in folder.configs:
            counts = ", ".join(f"{split} {n}" for split, (_, n) in config.splits.items())
            self.stdout.write(f"{config.name}: {counts}")
        self.stderr.write(f"wrote {output} (README.md and Parquet files); nothing was uploaded")

    def _as_job(self, project: Project, dataset: str, fmt: str | None, chosen: Options) -> None:
        self._report_job(export_job_create(project=project, dataset=dataset, fmt=fmt, options=chosen))

    def _report_job(self, job: ExportJob) -> None:
        job.refresh_from_db()
        if job.status == ExportJob.Status.FAILED:
            raise CommandError(f"export job #{job.pk} failed: {job.error}")
        if job.status == ExportJob.Status.DONE:
            self.stdout.write(
                f"export job #{job.pk} done ({job.cells} cells): {job.rows_written} rows, {export_job_path(job)}"
            )
        else:
            self.stdout.write(f"export job #{job.pk} queued ({job.cells} cells); a worker writes it")

    def _to_stdout(self, chunks) -> None:
        binary = getattr(self.stdout._out, "buffer", None)  # the real stdout: pass bytes straight on
        try:
            for chunk in chunks:
                if binary is not None:
                    binary.write(chunk)
                else:
                    self.stdout.write(chunk.decode("utf-8"), ending="")
            if binary is not None:
                binary.flush()
        except BrokenPipeError:  # `| head`: the reader has all it wanted
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
