"""The Jinja2 environment of the annotator pages (templates/surveys/**, rendered with using="jinja2").

Django's template language took about a third of an annotator request's CPU to render a page;
Jinja2 compiles templates to Python functions. This environment gives the pages what DTL gave
them, so that the HTML stays the same: Django's escaping (quotes as &quot; and &#x27;, where
markupsafe writes &#34; and &#39;), Django's translations in the request's activated language,
`static`, `linebreaksbr` and the form inputs of surveys.page_inputs. Every other template stays DTL,
and the DTL engine leaves templates/surveys/** alone (`DjangoTemplatesLoader`).
"""
from __future__ import annotations

import html
from functools import lru_cache
from typing import Any, Iterator

import jinja2
import jinja2.runtime
from django.core.signals import setting_changed
from django.template import Origin
from django.template.defaultfilters import linebreaksbr
from django.template.loaders import filesystem
from django.templatetags.static import static
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, gettext_lazy, ngettext, pgettext_lazy
from markupsafe import Markup

from surveys.page_inputs import escape_html, field_input, option_input

#: the templates of this environment, under the templates/ directory both engines read
JINJA2_TEMPLATES = "surveys/"
#: a page's context key for the language the view activated (its translations are read in it)
LANGUAGE = "LANGUAGE"


class DjangoTemplatesLoader(filesystem.Loader):
    """The DTL engine's loader of templates/, without the Jinja2 pages: a lookup that names no
    engine (`get_template("surveys/...")`) then finds them in the Jinja2 engine instead of
    failing to compile them as DTL."""

    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        if not template_name.startswith(JINJA2_TEMPLATES):
            yield from super().get_template_sources(template_name)


@jinja2.pass_context
def escape_like_django(context: jinja2.runtime.Context, value: Any) -> Markup:
    """Every `{{ value }}` as DTL writes it: escaped as Django's conditional_escape does (safe
    values, such as `linebreaksbr`'s output or an ErrorList, pass unchanged); Jinja's own escape,
    which runs on what `finalize` returns, then keeps the Markup as it is. A lazy translation
    (a page's title, a field's label) is read once per language (`lazy_text`)."""
    if type(value) is str:  # most values: Django's escape without the checks for safe and lazy ones
        return Markup(html.escape(value))
    if isinstance(value, Promise):
        value = lazy_text(context.get(LANGUAGE) or get_language(), value)
    return Markup(escape_html(value))


# What a page asks for again and again, the same for the life of the settings and the language
# (about 600,000 instructions of an annotator page's 7 million, counted with callgrind): the two
# static URLs, the instructions with their line breaks, the interface's translated strings.
@lru_cache(maxsize=None)
def static_url(path: str) -> str:
    return static(path)


@lru_cache(maxsize=64)
def _linebreaksbr_text(text: str) -> str:
    return linebreaksbr(text)


def linebreaksbr_text(value: Any) -> str:
    """`linebreaksbr`, remembered for plain text, and for a kind's lazily translated default
    instructions once they are read in the active language."""
    if isinstance(value, Promise):
        value = str(value)
    return _linebreaksbr_text(value) if type(value) is str else linebreaksbr(value)


@lru_cache(maxsize=1024)
def _translated(language: str | None, message: str) -> str:
    return gettext(message)


@jinja2.pass_context
def gettext_in_language(context: jinja2.runtime.Context, message: str) -> str:
    """`gettext`, remembered per language: the one the view rendered the page in (`LANGUAGE` in
    the context), else the active one. Asking Django for the active language goes through
    asgiref's Local each time, which cost more than the lookup of the translation itself."""
    return _translated(context.get(LANGUAGE) or get_language(), message)


#: (language, id of a lazy translation) -> (the lazy object, its text in that language); holding
#: the object keeps its id from being reused by another while its entry lives
_lazy_texts: dict[tuple[str | None, int], tuple[Any, str]] = {}
MAX_LAZY_TEXTS = 4096
#: the lazy values worth remembering: translations, which hold nothing but their message. Other
#: lazy values are made for one request and hold it (the backend's `csrf_input` holds the request,
#: its session and messages): 4,096 of them kept alive made each full garbage collection of a
#: worker scan 200,000 objects more and stop it for up to 390 ms (bench/README.md, round 6).
TRANSLATION_LAZIES = (type(gettext_lazy("")), type(pgettext_lazy("", "")))


def lazy_text(language: str | None, value: Promise) -> str:
    """`str(value)` of a lazy value; a lazy translation's is remembered per language. `language`
    must be the active one (`LANGUAGE` is set from it by the views that render pages)."""
    if type(value) not in TRANSLATION_LAZIES:
        return str(value)
    key = (language, id(value))
    known = _lazy_texts.get(key)
    if known is not None and known[0] is value:
        return known[1]
    text = str(value)
    if len(_lazy_texts) >= MAX_LAZY_TEXTS:
        _lazy_texts.clear()
    _lazy_texts[key] = (value, text)
    return text


_CACHED = (static_url, _linebreaksbr_text, _translated)
#: settings that change what the cached functions return (tests override them)
_CACHED_SETTINGS = frozenset({"STATIC_URL", "STATIC_ROOT", "STORAGES", "LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS",
                              "USE_I18N"})


def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting in _CACHED_SETTINGS:
        for function in _CACHED:
            function.cache_clear()
        _lazy_texts.clear()


setting_changed.connect(_forget, dispatch_uid="config.jinja2._forget")


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
    env.install_gettext_callables(gettext_in_language, ngettext, newstyle=False)
    env.globals.update(static=static_url, option_input=option_input, field_input=field_input)
    env.filters["linebreaksbr"] = linebreaksbr_text
    return env
