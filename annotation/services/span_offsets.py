"""Finding spans stored with the offsets pages counted before they counted code points.

Pages used to send a selection's offsets in UTF-16 units of the text as the browser shows it
(an emoji two, CRLF one): after an astral character or a CR, such a span was stored marking the
wrong characters ("errible " for "terrible"). Now pages send code points of the stored text and
the marked text itself, which the server checks, so both readings can be told apart only where
one of them cannot be a page's: a page never marks white space at a span's edges. A span is
repaired only where its stored reading is impossible and the old page's reading is possible."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotation.kinds import kind_of
from annotation.kinds.spans import from_browser_offsets, trimmed
from annotation.models import Project, Response

FINE, REPAIRABLE, AMBIGUOUS, BROKEN = "fine", "repairable", "ambiguous", "broken"


@dataclass(frozen=True)
class SpanFinding:
    response_id: int
    item: str
    page: str
    question: str
    start: int
    end: int
    stored_text: str
    verdict: str  # REPAIRABLE, AMBIGUOUS or BROKEN
    repaired: tuple[int, int] | None = None  # the code-point offsets the old page meant

    def describe(self) -> str:
        where = f"item {self.item}, response {self.response_id}, {self.page}.{self.question} {self.start}-{self.end}"
        if self.verdict == REPAIRABLE and self.repaired is not None:
            return f"{where}: stored {self.stored_text!r}, meant {self.repaired[0]}-{self.repaired[1]}"
        if self.verdict == AMBIGUOUS:
            return f"{where}: {self.stored_text!r} may have been counted either way; check it by hand"
        return f"{where}: {self.stored_text!r} is not a span a page could have marked; check it by hand"


def verdict(text: str, span: dict[str, Any]) -> tuple[str, tuple[int, int] | None]:
    """How a stored span reads under both conventions (FINE: the same, or only the new one fits)."""
    start, end = span.get("start"), span.get("end")
    if not (isinstance(start, int) and isinstance(end, int)) or span.get("text") != text[start:end]:
        return BROKEN, None
    old = from_browser_offsets(text, start, end)
    if old == (start, end):
        return FINE, None
    now_fits = trimmed(text, start, end)
    if old is None or not trimmed(text, *old):
        return (FINE, None) if now_fits else (BROKEN, None)
    if not now_fits:
        return REPAIRABLE, old
    if _whole_words(text, start, end) and not _whole_words(text, *old):
        return FINE, None  # both are a page's, but only the stored one keeps whole words
    return AMBIGUOUS, old


def _whole_words(text: str, start: int, end: int) -> bool:
    """Whether [start, end) neither starts nor ends inside a word (as people select)."""

    def inside(at: int) -> bool:
        return 0 < at < len(text) and text[at - 1].isalnum() and text[at].isalnum()

    return not inside(start) and not inside(end)


def span_offsets_check(*, project: Project, repair: bool = False) -> list[SpanFinding]:
    """Every stored span of the project's span questions that is not fine; with `repair`, the
    repairable ones rewritten (offsets and text) in one transaction."""
    kind = kind_of(project)
    if not kind.marked_spans({}):
        return []
    findings: list[SpanFinding] = []
    with transaction.atomic():
        responses = Response.objects.filter(item__project=project).select_related("item").order_by("pk")
        for response in responses.select_for_update(of=("self",)) if repair else responses:
            changed = False
            for page, question, text in kind.marked_spans(response.item.payload):
                spans = (response.answers.get(page) or {}).get(question) or []
                for span in spans:
                    found, meant = verdict(text, span)
                    if found == FINE:
                        continue
                    findings.append(
                        SpanFinding(
                            response.pk,
                            response.item.external_id or str(response.item_id),
                            page,
                            question,
                            span.get("start"),
                            span.get("end"),
                            str(span.get("text")),
                            found,
                            meant,
                        )
                    )
                    if repair and found == REPAIRABLE and meant is not None:
                        span.update(start=meant[0], end=meant[1], text=text[meant[0] : meant[1]])
                        changed = True
                if changed:
                    spans.sort(key=lambda s: (s["start"], s["end"]))
            if changed:
                response.save(update_fields=["answers"])
    return findings
