"""Text from a project (its name, task title, split names and key values, field names) as it goes
into the dataset card's Markdown body: one line, Markdown's punctuation and HTML escaped, so no
name can start a heading, a list, a link, a table row or markup of its own."""

from __future__ import annotations

import re

#: the punctuation that makes markup in the middle of a line (emphasis, code, links and images,
#: table cells, strike-through, a hard break); the rest renders as typed (a line is never started
#: by the text: it comes after "# ", "- " or "| ")
_PUNCTUATION = re.compile(r"([\\`*_\[\]|~!])")
_BACKTICKS = re.compile(r"`+")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def md_text(text: object) -> str:
    """`text` as literal Markdown text on one line."""
    line = _one_line(str(text)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _PUNCTUATION.sub(r"\\\1", line)


def md_code(text: object) -> str:
    """`text` as one inline code span (CommonMark: a fence longer than any run of backticks in
    it, padded when it starts or ends with one); on one line."""
    line = _one_line(str(text))
    longest = max((len(run) for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    return f"{fence}{pad}{line}{pad}{fence}"
