"""Locating a copied span in a passage, forgiving only differences in white space."""

from __future__ import annotations

import re


def find_span(passage: str, span: str) -> tuple[int, int] | None:
    """Character offsets [start, end) of `span` in `passage`, ignoring how white space is laid out.

    Copying from a browser folds line breaks and doubles spaces, so the span is matched token
    by token with any run of white space between; the offsets point into the original text.
    """
    tokens = span.split()
    if not tokens:
        return None
    pattern = r"\s+".join(re.escape(token) for token in tokens)
    match = re.search(pattern, passage)
    if match is None:
        return None
    return match.start(), match.end()


def _shown(text: str) -> list[int]:
    """The offset, in UTF-16 units of `text` as a browser shows it (CRLF and a lone CR read as
    one LF), at which each code point starts; one more entry for the end."""
    starts, at = [], 0
    for i, char in enumerate(text):
        starts.append(at)
        if char == "\r" and text[i + 1 : i + 2] == "\n":
            continue
        at += 2 if ord(char) > 0xFFFF else 1
    starts.append(at)
    return starts


def from_browser_offsets(text: str, start: int, end: int) -> tuple[int, int] | None:
    """[start, end) counted as pages before code-point offsets did (UTF-16 units over the shown
    text), as code points of `text`; None when it lies outside the text."""
    starts = _shown(text)
    if not 0 <= start < end <= starts[-1]:
        return None
    first = max(i for i, at in enumerate(starts) if at <= start)
    last = min(i for i, at in enumerate(starts) if at >= end)
    return first, last


def trimmed(text: str, start: int, end: int) -> bool:
    """Whether [start, end) of `text` is a span a page can mark: inside the text, not empty, no
    white space at either edge (the page trims a selection's)."""
    return 0 <= start < end <= len(text) and not text[start].isspace() and not text[end - 1].isspace()
