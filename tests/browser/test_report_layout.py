"""Issue 38: each demo project's quality report fits the window at 1,280 and 1,400 px: no control
or column reachable only by scrolling (tables wrap their text, not the page), and links in text
are underlined, not told apart by colour alone (axe: link-in-text-block)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Project
from quality.services.runs import quality_run_create
from tests.browser.test_quality_report import log_in
from tests.quality.test_hub_demo_folders import ANSWERS, annotate_one_unit, two_annotators

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: every section, and every box that scrolls a table, wider inside than it shows
TOO_WIDE = """() => {
  const wide = [];
  if (document.documentElement.scrollWidth > window.innerWidth)
    wide.push(['page', document.documentElement.scrollWidth, window.innerWidth]);
  for (const el of document.querySelectorAll('.quality-report .module, .quality-report .scroll')) {
    if (el.scrollWidth > el.clientWidth + 1)
      wide.push([(el.id || el.className) + ': ' + (el.querySelector('h2, th') || el).textContent.trim().slice(0, 40),
                 el.scrollWidth, el.clientWidth]);
  }
  return wide;
}"""


@pytest.mark.parametrize("slug", ["recam", "cosimlex", "gcrc", "scde"])
def test_each_demo_report_fits_the_window(slug, live_server, page):
    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    project = Project.objects.get(kind=slug)
    batch, people = two_annotators(project)
    for person in people:
        annotate_one_unit(person, batch, ANSWERS[slug])  # a transactional test: commit hooks run at once
    quality_run_create(project=project)
    quality_run_create(project=project)  # an earlier run to link to
    log_in(page, live_server)
    for width in (1280, 1400):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + reverse("quality:report", args=[project.pk]))
        assert page.evaluate(TOO_WIDE) == [], (slug, width)
        buttons = page.evaluate(
            "() => Array.from(document.querySelectorAll('#exports a.button')).map(a => a.getBoundingClientRect().right)"
        )
        assert buttons and max(buttons) <= width, (slug, width, max(buttons))
        underline = page.evaluate(
            "() => getComputedStyle(document.querySelector('a[href^=\"?run=\"]')).textDecorationLine"
        )
        assert "underline" in underline
