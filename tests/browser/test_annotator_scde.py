"""An annotator in a real browser fills SCDE passages: a candidate chosen for one blank is
disabled for the others and marked as used, a reload keeps the choices (and the page's first
"shown" note), the server refuses a reused candidate posted directly, the difficulty and the
visible time are stored, and the next passage (swapped in by annotate.js) works the same."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Assignment, Item, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.browser.recam_driver import submit_page
from tests.conftest import data_file
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# the form as the page would send it, but with blank 2 given blank 1's candidate
POST_REUSED = """async () => {
  const form = document.getElementById('page-form');
  const data = new FormData(form);
  data.set('blank_2', data.get('blank_1'));
  const answer = await fetch(location.href, {method: 'POST', body: new URLSearchParams(data),
    headers: {'Content-Type': 'application/x-www-form-urlencoded'}, credentials: 'same-origin'});
  return [answer.status, await answer.text()];
}"""


def make_invite():
    project = ProjectFactory(kind="scde", name="Browser SCDE")
    items_import(project=project, data=data_file("scde", "made_up.dev.json").read_bytes())
    items = list(Item.objects.filter(project=project).order_by("id")[1:3])  # two passages of 3 blanks
    batch = batch_create(project=project, name="browser", items=items, items_per_unit=2, assignments_per_unit=1)
    return invite_link_create(batch=batch)


def current_response(page) -> Response:
    return Response.objects.select_related("item").get(pk=page.get_attribute("input[name=response]", "value"))


def option_disabled(page, blank: int, candidate: int) -> bool:
    return page.locator(f"select[name=blank_{blank}] option[value='{candidate}']").is_disabled()


def ready(page) -> None:
    """Wait for the page's script to have set the passage up (it loads after the form is shown)."""
    page.wait_for_selector("#page-form[data-scde-ready]", state="attached")


def choose(page, blank: int, candidate: int) -> None:
    page.select_option(f"select[name=blank_{blank}]", str(candidate))


def test_choose_reuse_refused_reload_keeps_choices_and_times_are_stored(live_server, page):
    page.goto(live_server.url + reverse("surveys:invite", args=[make_invite().token]))
    page.locator("form button[type=submit]").click()
    assert page.get_attribute("#page-form", "data-page") == "passage"
    ready(page)
    response = current_response(page)
    gold = response.item.payload["gold"]  # {"1": 1, "2": 2, "3": 4}
    assert page.locator("select.blank-choice").count() == 3 and page.locator("[data-candidate]").count() == 5

    choose(page, 1, gold["1"])
    assert option_disabled(page, 2, gold["1"]) and option_disabled(page, 3, gold["1"])
    assert not option_disabled(page, 1, gold["1"]) and not option_disabled(page, 2, 0)
    used = page.locator(f"[data-candidate='{gold['1']}']")
    assert "used" in used.get_attribute("class") and "used for blank 1" in used.inner_text()
    page.locator("input[name=difficulty][value=Easy]").check()

    first_shown = page.get_attribute("input[name=shown]", "value")
    page.reload()
    ready(page)
    assert page.input_value("select[name=blank_1]") == str(gold["1"])
    assert page.input_value("select[name=blank_2]") == ""
    assert option_disabled(page, 2, gold["1"])
    assert page.locator("input[name=difficulty][value=Easy]").is_checked()
    assert page.get_attribute("input[name=shown]", "value") == first_shown

    status, html = page.evaluate(POST_REUSED)
    assert status == 400 and "is already used for blank 1" in html
    response.refresh_from_db()
    assert response.answers == {}

    choose(page, 2, gold["2"])
    choose(page, 3, gold["3"])
    submit_page(page)
    response.refresh_from_db()
    answer = response.answers["passage"]
    assert answer["choices"] == gold and answer["difficulty"] == "Easy"
    server = response.timings["passage"]["seconds"]
    assert answer["visible_seconds"] is not None and server is not None
    assert 0 <= answer["visible_seconds"] <= server + 1  # visible since the first view, which the server timed

    # the second passage came in through annotate.js's swap: the page script still works there
    assert page.get_attribute("#page-form", "data-page") == "passage"
    ready(page)
    second = current_response(page)
    assert second.pk != response.pk
    choose(page, 1, 0)
    assert option_disabled(page, 3, 0)
    for blank, candidate in second.item.payload["gold"].items():
        if blank != "1":
            choose(page, int(blank), candidate)
    # (candidate 0 is blank 1's gold in this passage; the others get theirs)
    page.locator("input[name=difficulty][value=VeryHard]").check()
    submit_page(page)
    second.refresh_from_db()
    assert second.answers["passage"]["difficulty"] == "VeryHard"
    assert second.answers["passage"]["choices"]["1"] == 0
    assert second.answers["passage"]["visible_seconds"] is not None  # the swapped-in page was set up
    assert page.locator("#done").is_visible()
    assert Assignment.objects.get().status == Assignment.Status.SUBMITTED


def test_a_sentence_in_two_blanks_is_refused_naming_both_blanks(live_server, page):
    """Two blanks holding one sentence (a restored or autofilled form, a keyboard that skipped the
    script's disabling): both choices are posted, so the refusal names the blanks that share it,
    not "Choose a sentence for blank 1" (a disabled selected option is not posted)."""
    page.goto(live_server.url + reverse("surveys:invite", args=[make_invite().token]))
    page.locator("form button[type=submit]").click()
    ready(page)
    response = current_response(page)
    choose(page, 1, 0)
    page.evaluate(
        """() => { const s = document.querySelector('select[name=blank_2]');
        s.value = '0'; s.dispatchEvent(new Event('change', {bubbles: true})); }"""
    )
    assert not option_disabled(page, 1, 0) and not option_disabled(page, 2, 0) and option_disabled(page, 3, 0)
    assert "used for blank 1, 2" in page.locator("[data-candidate='0']").inner_text()
    choose(page, 3, 1)
    page.locator("input[name=difficulty][value=Easy]").check()
    page.locator("form button[type=submit]").click()
    page.wait_for_selector(".msg.error")
    errors = page.locator(".msg.error").all_inner_texts()
    assert any("Sentence A is already used for blank 1" in e for e in errors), errors
    assert not any("Choose a sentence" in e for e in errors), errors
    response.refresh_from_db()
    assert response.answers == {}
