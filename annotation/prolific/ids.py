"""The format of Prolific's ids: participant, study and submission (session) ids are 24
lower-case hexadecimal characters (MongoDB object ids; reference/prolific.md: "mint 24-hex
IDs"). Anything else (a trailing space, upper case, a made-up word) is not Prolific's."""

from __future__ import annotations

import re

PROLIFIC_ID = re.compile(r"[0-9a-f]{24}")


def malformed_ids(**ids: str) -> list[str]:
    """The names of the ``ids`` (name=value) that are not in Prolific's format ([] when all are)."""
    return [name for name, value in ids.items() if not PROLIFIC_ID.fullmatch(value)]
