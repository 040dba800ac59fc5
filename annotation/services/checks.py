"""Marking a project's check items (attention and gold items, `Item.check_answer`): from a file of
{external id, expected answer} lines, all or nothing, each mistake named with its line."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotation.kinds import check_problems, kind_of
from annotation.models import Item, Project
from annotation.structured_input import Refused, load_json


class CheckFileError(ValueError):
    """A check file that cannot be used; `problems` lists each mistake with its line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class CheckLine:
    line: int
    external_id: str
    expect: Any
    #: why the expected answer is right (shown after a training item)
    explain: str = ""


def check_lines(text: str) -> list[CheckLine]:
    """The file's lines: JSON Lines of {"external_id": ..., "expect": {label field: expected},
    "explain": "why" (optional)} (expect null: no longer a check item)."""
    found, problems = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = load_json(raw, first_line=number)
        except Refused as exc:
            problems.append(f"line {number}: not JSON this platform reads ({exc.message})")
            continue
        if (
            not isinstance(record, dict)
            or not isinstance(record.get("external_id"), str | int)
            or "expect" not in record
        ):
            problems.append(f'line {number}: a line is {{"external_id": ..., "expect": {{label field: expected}}}}')
            continue
        explain = record.get("explain", "")
        if not isinstance(explain, str):
            problems.append(f"line {number}: explain is a text")
            continue
        found.append(CheckLine(number, str(record["external_id"]), record["expect"], explain))
    if problems:
        raise CheckFileError(problems)
    if not found:
        raise CheckFileError(["the file names no item"])
    return found


def items_mark_checks(*, project: Project, lines: Iterable[CheckLine]) -> int:
    """Make the named items check items with their expected answers (or ordinary items again, for
    `expect` null). Refused as a whole, naming each line at fault: an unknown item, an expected
    answer the kind's label fields cannot give, an item a batch hands out as ordinary work."""
    lines = list(lines)
    kind = kind_of(project)
    items = {
        i.external_id: i for i in Item.objects.filter(project=project, external_id__in=[c.external_id for c in lines])
    }
    handed_out = set(
        Item.objects.filter(pk__in=[i.pk for i in items.values()], unit_items__isnull=False).values_list(
            "external_id", flat=True
        )
    )
    problems = []
    for check in lines:
        where = f"line {check.line} ({check.external_id})"
        if check.external_id not in items:
            problems.append(f"{where}: no such item in the project")
        elif check.expect is not None and check.external_id in handed_out:
            problems.append(f"{where}: a batch hands this item out as work; a check item must not be in a batch")
        elif check.expect is not None:
            problems.extend(f"{where}: {p}" for p in check_problems(kind, check.expect))
    if problems:
        raise CheckFileError(problems)
    with transaction.atomic():
        for check in lines:
            Item.objects.filter(pk=items[check.external_id].pk).update(
                check_answer=check.expect, check_explanation=check.explain if check.expect is not None else ""
            )
    return len(lines)
