"""The Jinja2 environment of the annotator pages (templates/surveys/**, rendered with using="jinja2").

Django's template language took about a third of an annotator request's CPU to render a page;
Jinja2 compiles templates to Python functions. This environment gives the pages what DTL gave
them, so that the HTML stays the same: Django's escaping (quotes as &quot; and &#x27;, where
markupsafe writes &#34; and &#39;), Django's translations in the request's activated language,
`static`, `linebreaksbr` and the form inputs of surveys.page_inputs. Every other template stays DTL,
and the DTL engine leaves templates/surveys/** alone (`DjangoTemplatesLoader`).
"""
from __future__ import annotations

from typing import Any, Iterator

import jinja2
from django.template import Origin
from django.template.defaultfilters import linebreaksbr
from django.template.loaders import filesystem
from django.templatetags.static import static
from django.utils.translation import gettext, ngettext
from markupsafe import Markup

from surveys.page_inputs import escape_html, field_input, option_input

#: the templates of this environment, under the templates/ directory both engines read
JINJA2_TEMPLATES = "surveys/"


class DjangoTemplatesLoader(filesystem.Loader):
    """The DTL engine's loader of templates/, without the Jinja2 pages: a lookup that names no
    engine (`get_template("surveys/...")`) then finds them in the Jinja2 engine instead of
    failing to compile them as DTL."""

    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        if not template_name.startswith(JINJA2_TEMPLATES):
            yield from super().get_template_sources(template_name)


def escape_like_django(value: Any) -> Markup:
    """Every `{{ value }}` as DTL writes it: escaped as Django's conditional_escape does (safe
    values, such as `linebreaksbr`'s output or an ErrorList, pass unchanged); Jinja's own escape,
    which runs on what `finalize` returns, then keeps the Markup as it is."""
    return Markup(escape_html(value))


def environment(**options: Any) -> jinja2.Environment:
    """The backend's OPTIONS["environment"]: Django's Jinja2 backend calls it with the OPTIONS."""
    options.update(
        finalize=escape_like_django,
        autoescape=True,  # always: dataset text is escaped wherever it is shown
        keep_trailing_newline=True,  # as DTL: an included page part ends with its file's newline
        undefined=jinja2.ChainableUndefined,  # as DTL: a missing value prints "", whatever DEBUG says
    )
    env = jinja2.Environment(**options)
    env.add_extension("jinja2.ext.i18n")
    # Django's functions: they translate into the language the view activated (the project's)
    env.install_gettext_callables(gettext, ngettext, newstyle=False)
    env.globals.update(static=static, option_input=option_input, field_input=field_input)
    env.filters["linebreaksbr"] = linebreaksbr
    return env
