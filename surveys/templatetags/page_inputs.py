"""`{% option_input radio %}`: a choice's <input>, exactly as Django's widget template writes it.

Django renders every radio option through the template engine (input.html + attrs.html), which
made up a sixth of an annotator page's CPU; the markup is fixed, so it is written here directly.
"""
from __future__ import annotations

from django import template
from django.forms.boundfield import BoundWidget
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def option_input(option: BoundWidget) -> SafeString:
    """The same markup as `option.tag()` (django/forms/widgets/input.html and attrs.html)."""
    data = option.data
    parts = [f'<input type="{conditional_escape(data["type"])}" name="{conditional_escape(data["name"])}"']
    if data["value"] is not None:
        parts.append(f' value="{conditional_escape(str(data["value"]))}"')
    for name, value in data["attrs"].items():
        if value is False:
            continue
        parts.append(f" {name}" if value is True else f' {name}="{conditional_escape(str(value))}"')
    parts.append(">")
    return mark_safe("".join(parts))
