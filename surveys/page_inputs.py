"""The annotator pages' form inputs, written directly: the same markup as Django's widget templates.

Django renders every input through the template engine (input.html + attrs.html, textarea.html):
a radio option alone made up a sixth of an annotator page's CPU. The markup is fixed, so it is
written here from the widget's own template context (`Widget.get_context`, which computes the
value and the attributes); tests/surveys/test_page_inputs.py compares it with Django's rendering.
config/jinja2.py offers these functions to templates/surveys/** as globals.
"""
from __future__ import annotations

import html
from typing import Any, Mapping

from django.forms.boundfield import BoundField, BoundWidget
from django.forms.widgets import Widget
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe

_WIDGETS = "django/forms/widgets/"
#: widget templates that are exactly `{% include "django/forms/widgets/input.html" %}`
INPUT_TEMPLATES = frozenset(
    _WIDGETS + name
    for name in ("text.html", "email.html", "url.html", "number.html", "password.html", "hidden.html", "checkbox.html")
)
TEXTAREA_TEMPLATE = _WIDGETS + "textarea.html"


def escape_html(value: Any) -> str:
    """django.utils.html.conditional_escape without its lazy-argument wrapper, which cost more than
    the escaping on a page's hot path: a safe value (`__html__`) passes, anything else is escaped
    exactly as Django escapes it (`html.escape`: quotes as &quot; and &#x27;)."""
    if isinstance(value, Promise):
        value = str(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    return html.escape(str(value))


def _attrs(attrs: Mapping[str, Any]) -> str:
    """attrs.html: ` name="value"` each, a bare ` name` for True, nothing for False."""
    return "".join(
        f" {escape_html(name)}" if value is True else f' {escape_html(name)}="{escape_html(str(value))}"'
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget: Mapping[str, Any]) -> SafeString:
    """input.html, from a widget's template context (`get_context(...)["widget"]`)."""
    value = "" if widget["value"] is None else f' value="{escape_html(str(widget["value"]))}"'
    return mark_safe(
        f'<input type="{escape_html(widget["type"])}" name="{escape_html(widget["name"])}"'
        f'{value}{_attrs(widget["attrs"])}>'
    )


def _textarea(widget: Mapping[str, Any]) -> SafeString:
    """textarea.html, from a widget's template context."""
    text = escape_html(widget["value"]) if widget["value"] else ""
    return mark_safe(f'<textarea name="{escape_html(widget["name"])}"{_attrs(widget["attrs"])}>\n{text}</textarea>')


def option_input(option: BoundWidget) -> SafeString:
    """One choice's <input> of a RadioSelect: the same markup as `option.tag()`."""
    return _input(option.data)


def field_input(field: BoundField) -> SafeString:
    """`str(field)` (`BoundField.as_widget()`): text-like inputs, checkboxes and textareas are
    written here; any other field (or one with a hidden initial, or localized) renders through Django."""
    widget = field.field.widget
    template = widget.template_name
    if (
        (template not in INPUT_TEMPLATES and template != TEXTAREA_TEMPLATE)
        or type(widget).render is not Widget.render
        or field.field.show_hidden_initial
        or field.field.localize
    ):
        return str(field)
    # as BoundField.as_widget() builds them
    attrs = field.build_widget_attrs({}, widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    context = widget.get_context(field.html_name, field.value(), attrs)["widget"]
    return _textarea(context) if template == TEXTAREA_TEMPLATE else _input(context)
