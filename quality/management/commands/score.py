"""`manage.py score (PROJECT_ID | KIND) SCORER [scorer options] [--json]`: run one of a kind's
reports or scorers (`TaskKind.scorers()`) on files and, given a project id, on the project's
latest quality run. `manage.py score KIND SCORER --help` lists a scorer's options."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.kinds import (
    NothingToScore,
    ScoreProblem,
    Scorer,
    TaskKind,
    UnknownKind,
    Upload,
    all_kinds,
    get_kind,
    kind_of,
)
from annotation.models import Project
from quality.scoring import kind_scorer, score_run


def scorers_listing() -> str:
    """Every kind's scorers, for the command's help."""
    kinds = [f"{kind.slug}: {', '.join(sorted(kind.scorers()))}" for kind in all_kinds() if kind.scorers()]
    return "Scorers by kind: " + "; ".join(kinds) + "."


class Command(BaseCommand):
    help = (
        "Run a task kind's report or scorer (a paper's summary table, a shared task's scorer) on files and, "
        "given a project id rather than a kind, on the project's cleaned data (its latest quality run)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("target", help="a project id (its kind's scorers, its results) or a task kind's slug")
        parser.add_argument("scorer", help="the scorer's name (see below)")
        parser.add_argument("rest", nargs=argparse.REMAINDER, help="the scorer's options; --json prints JSON")
        parser.epilog = scorers_listing() + " `manage.py score KIND SCORER --help` shows a scorer's options."

    def handle(self, *args: Any, target: str, scorer: str, rest: list[str], **options: Any) -> None:
        project, kind = _target(target)
        try:
            chosen = kind_scorer(kind, scorer)
        except ScoreProblem as exc:
            raise CommandError(str(exc)) from None
        given = vars(_option_parser(target, scorer, chosen).parse_args(rest))
        as_json = given.pop("json")
        uploads = {name: _uploads(value) for name, value in given.items() if value is not None}
        try:
            result = score_run(kind=kind, scorer=scorer, project=project, options=uploads)
        except (ScoreProblem, NothingToScore) as exc:
            raise CommandError(str(exc)) from None
        if as_json or chosen.text is None:
            self.stdout.write(json.dumps(result, indent=2))
        else:
            self.stdout.write(chosen.text(result))


def _target(target: str) -> tuple[Project | None, TaskKind]:
    if target.isdigit():
        project = Project.objects.filter(pk=int(target)).first()
        if project is None:
            raise CommandError(f"no project with id {target}")
        return project, kind_of(project)
    try:
        return None, get_kind(target)
    except UnknownKind as exc:
        raise CommandError(f"{exc}; or give a project id") from None


def _option_parser(target: str, name: str, scorer: Scorer) -> CommandParser:
    """The scorer's own options, as a parser whose errors are CommandErrors."""
    parser = CommandParser(
        prog=f"manage.py score {target} {name}", description=scorer.description, called_from_command_line=False
    )
    for option in scorer.options:
        kwargs: dict[str, Any] = {"help": option.help, "required": option.required}
        if option.file:
            kwargs["type"] = Path
        if option.many:
            kwargs["action"] = "append"
        parser.add_argument(f"--{option.name}", **kwargs)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def _uploads(value: Any) -> Any:
    if isinstance(value, list):
        return [_uploads(one) for one in value]
    if not isinstance(value, Path):
        return value
    try:
        return Upload(value.name, value.read_bytes())
    except OSError as exc:
        raise CommandError(f"{value}: {exc.strerror}") from None
