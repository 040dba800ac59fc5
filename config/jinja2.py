"""The Jinja2 environment of the annotator pages (templates/jinja2/surveys/**, rendered with using="jinja2").

Stock Jinja2 as Django's Jinja2 backend documents it: autoescape on (dataset text is always
escaped), Django's translations through Jinja's i18n extension, and `static` and `url` as
globals. Forms render through Django's own widgets (`{{ field }}`, `{{ radio.tag() }}`).
"""

from __future__ import annotations

from typing import Any

import jinja2
from django.template.defaultfilters import linebreaksbr
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, ngettext


def environment(**options: Any) -> jinja2.Environment:
    """The backend's OPTIONS["environment"]: Django's Jinja2 backend calls it with the OPTIONS."""
    options.setdefault("extensions", []).append("jinja2.ext.i18n")
    env = jinja2.Environment(**options)
    env.install_gettext_callables(gettext, ngettext, newstyle=False)  # type: ignore[attr-defined]
    env.globals.update(static=static, url=reverse)
    env.filters["linebreaksbr"] = linebreaksbr
    return env
