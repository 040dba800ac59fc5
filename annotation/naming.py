"""One name per annotator wherever a person reads it (item and adjudication pages, the quality
report, the final-label exports): the platform's number, then the channel's id where the reader
may see it (a researcher; never another annotator)."""

from __future__ import annotations


def annotator_name(number: int | str, channel_id: str = "") -> str:
    """`#3 (3-635f535de93c)` for a researcher, `#3` alone on pages other annotators see."""
    return f"#{number} ({channel_id})" if channel_id else f"#{number}"
