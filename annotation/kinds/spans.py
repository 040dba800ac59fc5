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
