"""What an import says about a bad file: one bad record (`ImportProblem`, naming its line, the
record's id where the file gives one, and the field), or every bad record of the file at once
(`ImportProblems`, up to `MAX_REPORTED`, with a count of the rest)."""

from __future__ import annotations

from collections.abc import Sequence

#: the most bad records one refusal lists; the rest are counted
MAX_REPORTED = 20


class ImportProblem(ValueError):
    """A bad record in an import file; names the line, the record's id and the field so the
    file can be fixed."""

    def __init__(self, message: str, *, line: int | None = None, field: str | None = None, record: str | None = None):
        self.message = message
        self.line = line
        self.field = field
        self.record = record
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.record is not None:
            where.append(f"record {self.record!r}")
        if self.field is not None:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class ImportProblems(ImportProblem):
    """Every bad record of a file (the first `MAX_REPORTED`; `more`: how many besides), one per
    line of the message; `line`, `record` and `field` are the first one's."""

    def __init__(self, problems: Sequence[ImportProblem], *, more: int = 0):
        self.problems = list(problems)
        self.more = more
        first = self.problems[0]
        lines = [str(p) for p in self.problems]
        if more:
            lines.append(f"and {more} more bad record{'s' if more != 1 else ''}")
        count = len(self.problems) + more
        head = f"{count} bad record{'s' if count != 1 else ''}:\n" if count > 1 else ""
        self.text = head + "\n".join(lines)
        super().__init__(first.message, line=first.line, field=first.field, record=first.record)

    def __str__(self) -> str:
        return self.text


def collected(problems: list[ImportProblem], bad: int) -> ImportProblem:
    """The refusal of a file with `bad` bad records, `problems` the first of them."""
    return problems[0] if bad == 1 else ImportProblems(problems, more=bad - len(problems))
