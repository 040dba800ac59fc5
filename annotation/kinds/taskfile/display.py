"""How an item's shown keys reach the page: plain text, Markdown with raw HTML off, or numbered
sentences. Everything leaves here escaped; only Markdown's own output is marked safe."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

#: a sentence ends at . ! ? (and their full-width forms, which need no space after them)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def sentences_of(value: Any) -> list[str]:
    """An item's text as its sentences: a list is taken as given; a text is split after each
    sentence-final mark."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(s) for s in value]
    return [s.strip() for s in _SENTENCE_END.split(str(value)) if s.strip()]


@cache
def _markdown() -> MarkdownIt:
    """CommonMark with raw HTML shown as text and no images (they would load from elsewhere);
    markdown-it refuses javascript: and similar links itself."""
    return MarkdownIt("commonmark", {"html": False}).disable("image")


def markdown_html(value: Any) -> Markup:
    return Markup(_markdown().render("" if value is None else str(value)))


def text_of(value: Any) -> str:
    """A plain value as the text shown: lists one per line, numbers as written."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)
