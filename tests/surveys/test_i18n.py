"""Translations of the annotator pages: the catalogues are complete, the compiled .mo files in
the tree match their .po files, placeholders survive, and pages come out in the project's
language (Croatian, Slovene, Finnish, Simplified Chinese).

Regenerate the catalogues with
    .venv/bin/python manage.py makemessages -l hr -l sl -l fi -l zh_Hans --ignore=.venv \
        --ignore=tests --ignore=bench --ignore=templates/admin --ignore=templates/quality --no-obsolete
and compile them with `.venv/bin/python manage.py compilemessages --ignore=.venv`.
"""

from __future__ import annotations

import gettext
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from annotation.kinds.recam import ReCAM
from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

from .test_cosimlex_flow import make_invite as make_cosimlex_invite
from .test_recam_flow import form_fields, join

LOCALE_DIR = Path(settings.LOCALE_PATHS[0])
#: catalogue directory (locale name) -> nplurals of the language
CATALOGUES = {"hr": 3, "sl": 4, "fi": 2, "zh_Hans": 1}
#: the "Save and continue" and "Start" buttons, as a speaker would expect them
BUTTONS = {
    "hr": ("Spremi i nastavi", "Započni"),
    "sl": ("Shrani in nadaljuj", "Začni"),
    "fi": ("Tallenna ja jatka", "Aloita"),
    "zh-hans": ("保存并继续", "开始"),
}
#: the title of ReCAM's first page ("Before reading")
FIRST_PAGE_TITLE = {"hr": "Prije čitanja", "sl": "Pred branjem", "fi": "Ennen lukemista", "zh-hans": "阅读前"}


# --- a tiny .po reader (stdlib only) ---------------------------------------------------------
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _unquote(token: str) -> str:
    assert token.startswith('"') and token.endswith('"'), token
    return re.sub(r"\\(.)", lambda m: _ESCAPES[m.group(1)], token[1:-1])


@dataclass
class PoEntry:
    msgid: str | None = None
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)


def parse_po(path: Path) -> list[PoEntry]:
    """Every live entry of a .po file, header first; obsolete `#~` entries are skipped."""
    entries: list[PoEntry] = []
    current: PoEntry | None = None
    pending_flags: set[str] = set()
    target: tuple[str, int] | None = None  # the field that continuation lines extend

    def finish() -> None:
        nonlocal current, target
        if current is not None:
            assert current.msgid is not None and current.msgstr, f"{path}: incomplete entry {current}"
            entries.append(current)
        current, target = None, None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            continue
        if line.startswith("#"):
            if current is not None and current.msgstr:
                finish()
            if line.startswith("#,"):
                pending_flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith('"'):
            assert target is not None, f"{path}:{number}: stray string"
            name, index = target
            if name == "msgstr":
                current.msgstr[index] += _unquote(line)
            else:
                setattr(current, name, getattr(current, name) + _unquote(line))
            continue
        keyword, _, rest = line.partition(" ")
        starts_entry = keyword == "msgctxt" or (keyword == "msgid" and (current is None or current.msgid is not None))
        if starts_entry:
            finish()
            current, pending_flags = PoEntry(flags=pending_flags), set()
        assert current is not None, f"{path}:{number}: {keyword} outside an entry"
        if keyword in ("msgctxt", "msgid", "msgid_plural"):
            setattr(current, keyword, _unquote(rest))
            target = (keyword, 0)
        elif (m := re.fullmatch(r"msgstr(?:\[(\d+)\])?", keyword)) is not None:
            index = int(m.group(1) or 0)
            current.msgstr[index] = _unquote(rest)
            target = ("msgstr", index)
        else:
            raise AssertionError(f"{path}:{number}: cannot read {line!r}")
    finish()
    return entries


def po_path(catalogue: str) -> Path:
    return LOCALE_DIR / catalogue / "LC_MESSAGES" / "django.po"


def expected_mo_catalog(entries: list[PoEntry]) -> dict:
    """What gettext.GNUTranslations must hold for these entries (its `_catalog` layout)."""
    catalog: dict = {}
    for e in entries:
        if e.msgid == "" and e.msgctxt is None:  # msgfmt leaves the POT-Creation-Date out of the header
            catalog[""] = "".join(
                line for line in e.msgstr[0].splitlines(True) if not line.startswith("POT-Creation-Date:")
            )
            continue
        key = e.msgid if e.msgctxt is None else f"{e.msgctxt}\x04{e.msgid}"
        if e.msgid_plural is None:
            catalog[key] = e.msgstr[0]
        else:
            for index, text in e.msgstr.items():
                catalog[(key, index)] = text
    return catalog


_NAMED = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]|\{(\w*)[^{}]*\}")
_POSITIONAL = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")


def placeholders(text: str) -> tuple[set[str], Counter]:
    named = {m.group(1) or "{" + m.group(2) + "}" for m in _NAMED.finditer(text)}
    positional = Counter(_POSITIONAL.findall(_NAMED.sub("", text.replace("%%", ""))))
    return named, positional


def test_every_offered_language_has_a_catalogue():
    offered = {translation.to_locale(code) for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE}
    assert offered == set(CATALOGUES)
    for catalogue in CATALOGUES:
        assert po_path(catalogue).exists() and po_path(catalogue).with_suffix(".mo").exists()


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_catalogue_is_complete_and_has_no_fuzzy_entries(catalogue):
    entries = parse_po(po_path(catalogue))
    header, messages = entries[0], entries[1:]
    assert header.msgid == "" and "fuzzy" not in header.flags
    assert "charset=UTF-8" in header.msgstr[0]
    nplurals = CATALOGUES[catalogue]
    assert re.search(rf"^Plural-Forms: nplurals={nplurals}; plural=.+;$", header.msgstr[0], re.M), header.msgstr[0]
    assert len(messages) > 40  # the annotator pages' words, not an empty stub
    assert len({(e.msgctxt, e.msgid) for e in messages}) == len(messages)
    for e in messages:
        assert "fuzzy" not in e.flags, e.msgid
        forms = 1 if e.msgid_plural is None else nplurals
        assert sorted(e.msgstr) == list(range(forms)), e.msgid
        assert all(text.strip() for text in e.msgstr.values()), f"untranslated in {catalogue}: {e.msgid!r}"


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_placeholders_survive_translation(catalogue):
    for e in parse_po(po_path(catalogue))[1:]:
        sources = [e.msgid] if e.msgid_plural is None else [e.msgid, e.msgid_plural]
        wanted_named = set().union(*(placeholders(s)[0] for s in sources))
        wanted_positional = placeholders(sources[-1])[1]
        for text in e.msgstr.values():
            named, positional = placeholders(text)
            assert named == wanted_named, f"{catalogue}: {e.msgid!r} -> {text!r}"
            assert positional == wanted_positional, f"{catalogue}: {e.msgid!r} -> {text!r}"


@pytest.mark.parametrize("catalogue", sorted(CATALOGUES))
def test_compiled_mo_matches_the_po_exactly(catalogue):
    """A .po edited without running compilemessages leaves a stale .mo: this fails then."""
    po = po_path(catalogue)
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} missing: run manage.py compilemessages"
    with mo.open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    expected = expected_mo_catalog(parse_po(po))
    assert set(compiled._catalog) == set(expected), "msgids differ between .po and .mo"
    for key, text in expected.items():
        assert compiled._catalog[key] == text, f"{catalogue}: stale translation of {key!r}"
    # and through the public API too
    for e in parse_po(po)[1:]:
        if e.msgid_plural is None and e.msgctxt is None:
            assert compiled.gettext(e.msgid) == e.msgstr[0]


# --- pages through the test client -------------------------------------------------------------
@pytest.fixture(autouse=True)
def _reset_language():
    yield
    translation.activate(settings.LANGUAGE_CODE)


def recam_invite(language: str, data: bytes, name: str | None = None):
    project = ProjectFactory(kind="recam", language=language, **({"name": name} if name else {}))
    items_import(project=project, data=data, filename="dev.jsonl")
    batch = batch_create(project=project, name="b1", items_per_unit=2, assignments_per_unit=2)
    return invite_link_create(batch=batch)


@pytest.mark.django_db
@pytest.mark.parametrize("language", sorted(BUTTONS))
def test_recam_invite_and_annotator_pages_are_in_the_project_language(client, recam_dev_bytes, language):
    name = "中文阅读理解 · Čitanje s razumijevanjem · Lukutaito"  # any script, shown exactly
    invite = recam_invite(language, recam_dev_bytes, name=name)
    save, start = BUTTONS[language]
    with translation.override(language):
        instructions = str(ReCAM.default_instructions)
    assert instructions != _english(ReCAM.default_instructions)

    page = client.get(reverse("surveys:invite", args=[invite.token]))
    html = page.content.decode()
    assert page.status_code == 200 and page["Content-Language"] == language
    assert f'<html lang="{language}">' in html
    assert start in html and ">Start<" not in html
    assert escape(instructions[:60]) in html
    assert name in html

    url = join(client, invite)
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200 and f'<html lang="{language}">' in html
    assert save in html and "Save and continue" not in html
    assert FIRST_PAGE_TITLE[language] in html and "Before reading" not in html
    assert name in html


def _english(text) -> str:
    with translation.override("en"):
        return str(text)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["hr", "sl", "fi"])
def test_cosimlex_pages_are_in_the_project_language(client, language):
    invite = make_cosimlex_invite(language)
    html = client.get(reverse("surveys:invite", args=[invite.token])).content.decode()
    assert f'<html lang="{language}">' in html and BUTTONS[language][1] in html
    assert "Similarity is not the same as relatedness" not in html  # the instructions are translated

    url = join(client, invite)
    html = client.get(url).content.decode()
    assert f'<html lang="{language}">' in html and BUTTONS[language][0] in html
    assert "write down two words inspired by it" not in html
    fields = form_fields(html)
    client.post(url, {**fields, "word_1": "rijeka", "word_2": "čamac"})
    html = client.get(url).content.decode()
    assert form_fields(html)["page"] == "rating"
    assert "Not similar at all" not in html and "score the similarity" not in html
    payload = Response.objects.get(pk=fields["response"]).item.payload
    assert escape(payload["word1"]) in html and escape(payload["word2"]) in html


@pytest.mark.django_db
def test_locked_page_message_is_translated_for_a_croatian_project(client, recam_dev_bytes):
    url = join(client, recam_invite("hr", recam_dev_bytes))
    fields = form_fields(client.get(url).content.decode())
    assert fields["page"] == "pre"
    client.post(url, {**fields, "choice": "0"})
    page = client.post(url, {**fields, "choice": "3"}, follow=True)
    html = page.content.decode()
    assert escape("Vaš odgovor na stranici „Prije čitanja” konačan je i ne može se promijeniti.") in html
    assert "final and cannot be changed" not in html
    assert Response.objects.get(pk=fields["response"]).answers["pre"] == {"choice": 0}


@pytest.mark.django_db
def test_closed_invitation_message_is_translated(client, recam_dev_bytes):
    invite = recam_invite("sl", recam_dev_bytes)
    invite.active = False
    invite.save(update_fields=["active"])
    assert "To povabilo je zaprto." in client.get(reverse("surveys:invite", args=[invite.token])).content.decode()
    closed = client.post(reverse("surveys:invite", args=[invite.token]))
    assert closed.status_code == 410 and "To povabilo je zaprto." in closed.content.decode()


SAMPLE_PO = r"""# a comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : n%10>=2 && n"
"%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2;\n"

#: somewhere.py:1
#, python-format
msgid "%(n)s item"
msgid_plural "%(n)s items"
msgstr[0] "%(n)s primjer"
msgstr[1] "%(n)s primjera"
msgstr[2] "%(n)s "
"primjera"

#, fuzzy
msgctxt "button"
msgid ""
"Save \"and\" "
"continue"
msgstr "Spremi \"i\"\tnastavi"

#~ msgid "Gone"
#~ msgstr "Nema"
"""


def test_the_po_reader_reads_plurals_contexts_flags_and_continuations(tmp_path):
    path = tmp_path / "django.po"
    path.write_text(SAMPLE_PO, encoding="utf-8")
    header, plural, button = parse_po(path)
    assert header.msgid == "" and "nplurals=3; plural=n%10==1" in header.msgstr[0] and "n%10<=4" in header.msgstr[0]
    assert (plural.msgid, plural.msgid_plural, plural.flags) == ("%(n)s item", "%(n)s items", {"python-format"})
    assert plural.msgstr == {0: "%(n)s primjer", 1: "%(n)s primjera", 2: "%(n)s primjera"}
    assert (button.msgctxt, button.msgid, button.msgstr, button.flags) == (
        "button",
        'Save "and" continue',
        {0: 'Spremi "i"\tnastavi'},
        {"fuzzy"},
    )
    catalog = expected_mo_catalog([header, plural, button])
    assert (
        catalog[("%(n)s item", 2)] == "%(n)s primjera"
        and catalog['button\x04Save "and" continue'] == 'Spremi "i"\tnastavi'
    )
    assert placeholders("%(n)s od %(total)d, {name} i %s %%") == ({"n", "total", "{name}"}, Counter({"%s": 1}))
