"""The Content-Security-Policy (django-csp) allows only the platform's own scripts and styles,
and no page but the MTurk ones may be framed; the templates hold nothing it would block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
#: what a policy without 'unsafe-inline' blocks: inline <script>/<style>, on* handlers, style=""
INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\son[a-z]+\s*=|\sstyle\s*=|javascript:", re.IGNORECASE)


def directives(header: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/admin/login/", "/api/docs/"])
def test_pages_get_a_policy_of_own_files_only(url):
    response = Client().get(url)
    assert response.status_code == 200
    policy = directives(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_api_docs_script_is_a_separate_file():
    html = Client().get("/api/docs/").content.decode()
    assert not INLINE.search(html), INLINE.search(html)
    script = re.search(r'<script src="([^"]+\?script=)"', html)
    assert script, html
    response = Client().get(script.group(1).replace("&amp;", "&"))
    assert response.status_code == 200 and "SwaggerUIBundle" in response.content.decode()


#: files the site never serves as a page: the quality report download is one self-contained HTML
#: file (sent as an attachment, opened from disk), so its styles are inline by design
DOWNLOADED_FILES = {"quality/report_download.html"}


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(TEMPLATES.rglob("*.html")) if p.relative_to(TEMPLATES).as_posix() not in DOWNLOADED_FILES],
    ids=lambda p: str(p.relative_to(TEMPLATES)),
)
def test_templates_hold_no_inline_script_or_style(path):
    found = INLINE.search(path.read_text())
    assert found is None, f"{path}: {found.group(0)!r} would be blocked by the Content-Security-Policy"
