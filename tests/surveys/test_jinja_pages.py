"""The annotator pages are Jinja2 templates (config/jinja2.py): every one compiles, values are
escaped (Jinja2's autoescape), the strings they translate are the ones makemessages extracts
from them (and are in the catalogues), dataset text in a translated sentence is escaped, and a
message shows once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import markupsafe
import pytest
from django.conf import settings
from django.template import TemplateDoesNotExist, engines
from django.template.loader import get_template
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation.template import templatize

from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

from .test_i18n import CATALOGUES, parse_po, po_path
from .test_recam_flow import form_fields, join

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "jinja2"
PAGES = sorted(p.relative_to(TEMPLATES).as_posix() for p in (TEMPLATES / "surveys").rglob("*.html"))
TRICKY = "<b>\"bold\"</b> & 'more'"


def jinja():
    return engines["jinja2"].env


def test_every_annotator_template_compiles_as_jinja2_and_has_no_dtl_tags_left():
    assert len(PAGES) >= 12  # the shared pages and every kind's
    for name in PAGES:
        jinja().get_template(name)
        source = re.sub(r"\{#.*?#\}", "", (TEMPLATES / name).read_text(encoding="utf-8"), flags=re.S)
        assert not re.search(r"\{%\s*(load|translate|trans|blocktranslate|csrf_token|static|option_input)\b", source), (
            name
        )
        assert not re.search(r"\|\w+:", source), name  # a DTL filter argument


def test_a_lookup_naming_no_engine_finds_the_pages_in_jinja2_and_everything_else_in_dtl():
    for name in PAGES:
        assert get_template(name).backend is engines["jinja2"], name
        with pytest.raises(TemplateDoesNotExist):
            engines["django"].get_template(name)
    assert get_template("admin/base_site.html").backend is engines["django"]
    assert get_template("quality/report.html").backend is engines["django"]


@pytest.mark.parametrize("value", [TRICKY, lazy(lambda: TRICKY, str)(), [TRICKY]])
def test_values_are_escaped(value):
    html = jinja().from_string("{{ v }}").render(v=value)
    assert "<b>" not in html and "&lt;b&gt;" in html and "&amp;" in html


def test_safe_values_pass_as_they_are():
    assert jinja().from_string("{{ v }}").render(v=mark_safe("<b>safe</b>")) == "<b>safe</b>"


def _templatized_msgids(source: str) -> set:
    """What makemessages extracts from a template (it reads .html files through `templatize`)."""
    out = templatize(source)
    found = {ast.literal_eval(m) for m in re.findall(r"""\b_\(("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\)""", out)}
    found |= {ast.literal_eval(m) for m in re.findall(r"""\bgettext\(u('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\)""", out)}
    string = r"""u('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
    found |= {
        (ast.literal_eval(s), ast.literal_eval(p))
        for s, p in re.findall(rf"\bngettext\({string}, {string}, count\)", out)
    }
    return found


def _jinja_msgids(source: str) -> set:
    """What the page translates when Jinja2 renders it."""
    return {
        message if isinstance(message, str) else message[:2]
        for _line, _f, message in jinja().extract_translations(source)
    }


def test_makemessages_extracts_exactly_the_strings_each_page_translates():
    total = 0
    for name in PAGES:
        source = (TEMPLATES / name).read_text(encoding="utf-8")
        assert _templatized_msgids(source) == _jinja_msgids(source), name
        total += len(_jinja_msgids(source))
    assert total >= 20


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_every_string_the_pages_translate_is_in_the_catalogue(catalogue):
    entries = parse_po(po_path(catalogue))[1:]
    singular = {e.msgid for e in entries if e.msgid_plural is None}
    plural = {(e.msgid, e.msgid_plural) for e in entries if e.msgid_plural is not None}
    for name in PAGES:
        for msgid in _jinja_msgids((TEMPLATES / name).read_text(encoding="utf-8")):
            assert msgid in (singular if isinstance(msgid, str) else plural), (name, msgid)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "hr", "zh-hans"])
def test_dataset_text_in_a_translated_sentence_is_escaped(client, language):
    header = "word1\tword2\tcontext1\tcontext2\tword1_context1\tword2_context1\tword1_context2\tword2_context2\n"
    row = (
        f"<b>bold</b>\t{TRICKY}\tA <strong><b>bold</b></strong> and <strong>{TRICKY}</strong>.\t"
        f"B <strong><b>bold</b>s</strong> and <strong>{TRICKY}s</strong>.\t<b>bold</b>\t{TRICKY}\t<b>bold</b>s\t{TRICKY}s\n"
    )
    project = ProjectFactory(kind="cosimlex", language=language)
    items_import(project=project, data=(header + row).encode(), filename="data_en.tsv")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1)
    url = join(client, invite_link_create(batch=batch))
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "word_1": "a", "word_2": "b"})
    html = client.get(url).content.decode()
    assert form_fields(html)["page"] == "rating"
    with translation.override(language):
        legend = translation.gettext(
            "Read the sentences again and then score the similarity between the words “%(word1)s” and “%(word2)s” "
            "when compared within this specific text."
        ) % {"word1": "<b>bold</b>", "word2": TRICKY}
    assert f"<legend>{markupsafe.escape(legend)}</legend>" in html  # Jinja2's autoescape
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>" not in html and TRICKY not in html


@pytest.mark.django_db
def test_a_message_shows_once_and_the_pages_render_no_dtl_template(client, recam_dev_bytes):
    project = ProjectFactory(kind="recam")
    items_import(project=project, data=recam_dev_bytes, filename="dev.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    url = join(client, invite_link_create(batch=batch))
    page = client.get(url)
    assert all(t.name.startswith("django/forms/") for t in page.templates)  # the pages are Jinja2's; widgets Django's
    fields = form_fields(page.content.decode())
    client.post(url, {**fields, "choice": "0"})
    shown = client.post(url, {**fields, "choice": "3"}, follow=True).content.decode()
    assert shown.count('<li class="msg error" role="alert">') == 1 and "final and cannot be changed" in shown
    again = client.get(url).content.decode()
    assert '<ul class="messages">' not in again and "final and cannot be changed" not in again
    assert client.get(reverse("surveys:invite", args=[invite_link_create(batch=batch).token])).templates == []


def test_static_urls_are_djangos():
    from django.templatetags.static import static

    assert jinja().from_string('{{ static("surveys/app.css") }}').render() == escape(static("surveys/app.css"))


def test_interface_strings_follow_the_active_language_at_every_render():
    page = jinja().from_string('{{ _("Save and continue") }}')
    seen = set()
    for language in ["en", "hr", "en", "sl", "fi", "zh-hans", "hr", "en"]:
        with translation.override(language):
            assert page.render() == escape(translation.gettext("Save and continue"))
            seen.add(page.render())
    assert len(seen) == 5  # five different translations, none left over from another language


@pytest.mark.parametrize("text", [TRICKY + "\nline two\r\nthree", mark_safe("<b>a</b>\nb"), None, ""])
def test_line_breaks_render_as_in_dtl_every_time(text):
    dtl = engines["django"].from_string("{{ t|linebreaksbr }}").render({"t": text})
    page = jinja().from_string("{{ t|linebreaksbr }}")
    assert page.render(t=text) == dtl and page.render(t=text) == dtl


def test_lazy_instructions_break_lines_in_the_active_language_every_time():
    """A kind's default instructions are a lazy translation: each render reads them in the
    language active then, and writes them as DTL's linebreaksbr does."""
    from django.utils import translation
    from django.utils.translation import gettext_lazy

    from annotation.kinds import get_kind

    texts = [get_kind("recam").default_instructions, gettext_lazy("Instructions"), gettext_lazy("Line one\n<two>")]
    page = jinja().from_string("{{ t|linebreaksbr }}")
    seen = set()
    for language in ["en", "hr", "sl", "fi", "en", "hr"]:
        with translation.override(language):
            for text in texts:
                dtl = engines["django"].from_string("{{ t|linebreaksbr }}").render({"t": text})
                assert page.render(t=text) == dtl
                seen.add(dtl)
    assert len(seen) > len(texts)  # the translations differ from the English text
