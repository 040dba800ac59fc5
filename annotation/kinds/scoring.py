"""A kind's reports and scorers: the place for what a researcher computes after annotation from
files and a project's results (a paper's summary table, a shared task's official scorer).

A kind lists them in `TaskKind.scorers()`; one management command (`manage.py score`) and one API
endpoint (`/api/projects/<id>/scores/<scorer>/`) run any of them, so nothing outside the kind's
module knows what a kind scores. Scorers are pure over what they are given: uploaded files as
`Upload`s and, when a project is named, a `ProjectResults` that loads the project's latest
quality run only when the scorer asks for it (the quality app builds it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any


class ScoreProblem(ValueError):
    """Input a scorer cannot use (a malformed file, a missing option); the message says what to fix."""


class NothingToScore(LookupError):
    """Nothing to score against yet (no finished quality run, unrated pairs); the message says what is missing."""


@dataclass(frozen=True)
class Upload:
    """A file given to a scorer: its name (for labels and messages) and its bytes."""

    name: str
    data: bytes

    def text(self) -> str:
        """The file as text (UTF-8, a BOM dropped); ScoreProblem naming the file otherwise."""
        try:
            return self.data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScoreProblem(f"{self.name}: not UTF-8 text ({exc})") from None


@dataclass(frozen=True)
class ScorerOption:
    """One input of a scorer: a file (`Upload`), several files (`many`: a list of them), or a
    plain text value (`file=False`)."""

    name: str
    help: str
    file: bool = True
    many: bool = False
    required: bool = False


@dataclass(frozen=True)
class ResultItem:
    """One item of a project in import order, with the latest quality run's diagnostics of it."""

    external_id: str
    payload: Mapping[str, Any]
    diagnostics: Mapping[str, Any]


class ProjectResults(ABC):
    """What a scorer may read of one project. Loaded on first use: both methods raise
    NothingToScore while the project has no finished quality run."""

    #: how a report names the project ("project 5: CoSimLex hr")
    label: str

    @abstractmethod
    def summary(self) -> Mapping[str, Any]:
        """The latest finished quality run's summary figures."""

    @abstractmethod
    def items(self) -> Iterator[ResultItem]:
        """The project's items in import order, each with the run's diagnostics ({} where none)."""


#: (project or None, options by name) -> a JSON-able result
ScoreFunction = Callable[["ProjectResults | None", Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Scorer:
    """A named report or scorer of a kind. `score(project, options)` gets the project's results
    when one is named (None otherwise) and the options by name (absent ones as None, or [] when
    `many`); it raises ScoreProblem or NothingToScore. `text(result)` renders the result for a
    terminal; without it the command prints JSON."""

    description: str
    score: ScoreFunction
    options: tuple[ScorerOption, ...] = ()
    text: Callable[[Mapping[str, Any]], str] | None = None

    def option(self, name: str) -> ScorerOption:
        for option in self.options:
            if option.name == name:
                return option
        known = ", ".join(o.name for o in self.options) or "none"
        raise ScoreProblem(f"unknown option {name!r}; this scorer takes: {known}")


def scorer_named(scorers: Mapping[str, Scorer], name: str, kind_title: str) -> Scorer:
    """The scorer called `name`, or ScoreProblem naming the ones there are."""
    try:
        return scorers[name]
    except KeyError:
        known = ", ".join(sorted(scorers)) or "none"
        raise ScoreProblem(f"unknown scorer {name!r} for {kind_title}; known scorers: {known}") from None


def options_filled(scorer: Scorer, given: Mapping[str, Any]) -> dict[str, Any]:
    """`given` checked against the scorer's options: unknown names and missing required ones
    raise ScoreProblem; absent ones come as None ([] when `many`)."""
    for name in given:
        scorer.option(name)
    filled: dict[str, Any] = {}
    for option in scorer.options:
        value = given.get(option.name)
        if option.many:
            value = list(value or [])
        if option.required and not value:
            raise ScoreProblem(f"option {option.name!r} is required: {option.help}")
        filled[option.name] = value
    return filled
