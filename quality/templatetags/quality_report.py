"""`{{ value|or_why:"reason" }}`: a figure, or, where it is missing ("—" or None), the dash with
its reason: a short visible word and the whole reason as the title, so no "—" goes unexplained."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html

from quality.report.format import MISSING

register = template.Library()

#: the visible word beside the dash; the reason itself is the title (shown on hover and read out)
SHORT = "n/a"


def missing(reason: str) -> str:
    """The dash with `reason` as its title and a short visible word."""
    return format_html('<span class="missing" title="{}">— <small>{}</small></span>', reason, SHORT)


@register.filter
def or_why(value: Any, reason: str) -> Any:
    if value is None or value == MISSING or value == "":
        return missing(reason)
    return value
