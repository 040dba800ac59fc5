"""The soak's verdict on what the database holds against what the annotators were told.

Every save an annotator sent is a `Send`; its outcome is what the browser learnt: "ok" (the
answer to it showed no error), "refused" (a message or a form error said it was not saved),
"unknown" (the connection broke before an answer: it may or may not have been applied, as a
request cut by a restart) or "unsent" (the connection was refused: it never reached the server).

A page is **lost** when a save of it was answered "ok" and the database does not hold, for that
page, the answer of that save or of another save of the same page that may have been applied
after it (one that was not answered before it began, and was not refused). An answer is
**foreign** when the database holds, for a page, an answer that no save of the page that may
have been applied carried (a save stored under another page, another response or another
annotator's work would show so).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: outcomes of a save that may have been applied
MAY_APPLY = ("ok", "unknown")
#: the form's value of "no other answer", stored as None
NONE_VALUES = ("", "none")


@dataclass(frozen=True)
class Send:
    response: int
    page: str
    answer: Mapping[str, str]  # the answer's form fields as posted (not the hidden ones)
    started: float  # monotonic
    finished: float | None  # None: no answer came
    outcome: str  # ok, refused, unknown, unsent
    who: str = ""  # the annotator (and tab), for the report


def matches(sent: Mapping[str, str], stored: Mapping[str, Any] | None) -> bool:
    """Whether the stored answer of a page is the one these form fields posted: every posted
    field equal to the stored value of its name (white space folded, as a copied span is
    matched; an empty or "none" choice is stored as None)."""
    if stored is None:
        return False
    for name, value in sent.items():
        kept = stored.get(name)
        if kept is None:
            if value.strip().lower() not in NONE_VALUES:
                return False
        elif " ".join(str(kept).split()) != " ".join(value.split()):
            return False
    return True


def may_follow(later: Send, first: Send) -> bool:
    """Whether `later` may have been applied after `first` was (it was not answered before
    `first` began, and not refused)."""
    return (
        later is not first and later.outcome in MAY_APPLY and (later.finished is None or later.finished > first.started)
    )


def lost_pages(sends: Iterable[Send], stored: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each save answered "ok" whose page holds neither its answer nor a later one (see the module)."""
    by_page: dict[tuple[int, str], list[Send]] = defaultdict(list)
    for send in sends:
        by_page[(send.response, send.page)].append(send)
    lost = []
    for (response, page), group in sorted(by_page.items()):
        kept = (stored.get(response) or {}).get(page)
        for send in group:
            if send.outcome != "ok":
                continue
            candidates = [send, *(other for other in group if may_follow(other, send))]
            if not any(matches(c.answer, kept) for c in candidates):
                lost.append(
                    {
                        "response": response,
                        "page": page,
                        "who": send.who,
                        "sent": dict(send.answer),
                        "stored": kept,
                        "later_sends": len(candidates) - 1,
                    }
                )
    return lost


def foreign_answers(sends: Iterable[Send], stored: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each stored page answer that no save which may have been applied carried."""
    sent: dict[tuple[int, str], list[Send]] = defaultdict(list)
    for send in sends:
        if send.outcome in MAY_APPLY:
            sent[(send.response, send.page)].append(send)
    foreign = []
    for response, answers in sorted(stored.items()):
        for page, kept in sorted(answers.items()):
            if not any(matches(s.answer, kept) for s in sent.get((response, page), [])):
                foreign.append({"response": response, "page": page, "stored": kept})
    return foreign
