"""An annotator's SCDE submission checked against the passage: the rules the page enforces.

The server must refuse what the page prevents (a candidate used for two blanks, a blank left
empty), since a page can be tampered with or outdated. Messages speak to the annotator and
name candidates by the letters the page shows (A, B, C, ... as in the exams SCDE comes from).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from string import ascii_uppercase
from typing import Any

from django.utils.translation import gettext as _


def candidate_label(candidate: int) -> str:
    """The letter a candidate is shown with: 0 -> A, 1 -> B, ...; numbers past Z."""
    return ascii_uppercase[candidate] if 0 <= candidate < len(ascii_uppercase) else str(candidate + 1)


@dataclass(frozen=True)
class AnswerProblem:
    """One thing wrong with a submission; `blank` is None when no single blank is at fault."""

    blank: int | None
    message: str


@dataclass(frozen=True)
class AnswerCheck:
    """The submission read as {blank: candidate id} (blanks that could be read), and its problems."""

    choices: dict[int, int]
    problems: tuple[AnswerProblem, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_answers(payload: Mapping[str, Any], submission: Mapping[Any, Any]) -> AnswerCheck:
    """Check {blank -> candidate id} (keys and values may be ints or digit strings, as a form
    posts them) against the passage: every blank filled, ids among the candidates, no
    candidate used twice, no blank the passage lacks."""
    blanks = list(payload["blanks"])
    n_candidates = len(payload["candidates"])
    given = {_number(key): value for key, value in submission.items()}
    problems = [
        AnswerProblem(None, _("There is no blank %(blank)s in this passage.") % {"blank": key})
        for key in given
        if key not in blanks
    ]
    choices: dict[int, int] = {}
    for blank in blanks:
        value = given.get(blank)
        if value is None or (isinstance(value, str) and not value.strip()):
            problems.append(AnswerProblem(blank, _("Choose a sentence for blank %(blank)s.") % {"blank": blank}))
            continue
        candidate = _number(value)
        if isinstance(candidate, bool) or not isinstance(candidate, int) or not 0 <= candidate < n_candidates:
            problems.append(
                AnswerProblem(
                    blank,
                    _("Blank %(blank)s: choose one of the sentences %(first)s to %(last)s.")
                    % {"blank": blank, "first": candidate_label(0), "last": candidate_label(n_candidates - 1)},
                )
            )
            continue
        choices[blank] = candidate
    problems.extend(_reused(choices))
    return AnswerCheck(choices=choices, problems=tuple(problems))


def _number(value: Any) -> Any:
    """An int from an int or a string of digits; anything else as it is (and then refused)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value.strip())
    return value


def _reused(choices: Mapping[int, int]) -> list[AnswerProblem]:
    """One problem per blank after the first that reuses a candidate."""
    first_blank: dict[int, int] = {}
    problems = []
    for blank, candidate in choices.items():
        if candidate in first_blank:
            problems.append(
                AnswerProblem(
                    blank,
                    _("Sentence %(label)s is already used for blank %(other)s; each sentence can fill only one blank.")
                    % {"label": candidate_label(candidate), "other": first_blank[candidate]},
                )
            )
        else:
            first_blank[candidate] = blank
    return problems
