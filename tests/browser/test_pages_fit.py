"""Issue 38: each demo project's landing page and first annotator page fit a 390 px phone (nothing
reachable only by scrolling sideways)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import InviteLink, Project
from quality.services.runs import quality_run_create
from tests.quality.test_hub_demo_folders import ANSWERS, annotate_one_unit, two_annotators

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the page, and its main boxes, wider inside than they show
TOO_WIDE = """() => {
  const wide = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    wide.push(['page', document.documentElement.scrollWidth, window.innerWidth]);
  for (const el of document.querySelectorAll('main, .page')) {
    if (el.scrollWidth > el.clientWidth + 1) wide.push([el.id || el.className, el.scrollWidth, el.clientWidth]);
  }
  return wide;
}"""


@pytest.fixture
def demo():
    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    for slug in ("recam", "gcrc"):  # work, runs, decisions and item results in the lists
        project = Project.objects.get(kind=slug)
        batch, people = two_annotators(project)
        for person in people:
            annotate_one_unit(person, batch, ANSWERS[slug])
        quality_run_create(project=project)


def test_each_demo_projects_first_page_fits_a_phone(demo, live_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    context.set_default_timeout(20_000)
    try:
        for project in Project.objects.order_by("pk"):
            link = InviteLink.objects.filter(batch__project=project, active=True).exclude(role="adjudicator").first()
            page = context.new_page()
            page.goto(live_server.url + reverse("surveys:invite", args=[link.token]))
            assert page.evaluate(TOO_WIDE) == [], (project.kind, "landing")
            page.locator("form button[type=submit]").first.click()
            page.wait_for_load_state()
            assert page.evaluate(TOO_WIDE) == [], (project.kind, page.url)
            page.close()
    finally:
        context.close()
