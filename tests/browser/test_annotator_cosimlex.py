"""An annotator in a real browser does CoSimLex's two pages per context: unmarked context and two
inspired words, then the targets in bold and a 0-6 rating; in Croatian, with text kept exactly."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.kinds.cosimlex.records import plain_context
from annotation.models import Assignment, Item, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.browser.recam_driver import submit_page
from tests.conftest import data_file
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make_invite(lang: str, *, items_per_unit: int = 2):
    project = ProjectFactory(kind="cosimlex", language=lang, name=f"CoSimLex {lang}")
    items_import(project=project, data=data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes())
    # the first context of the first pairs, one unit's worth: the unit ends on the "done" page
    items = list(Item.objects.filter(project=project, payload__context=1).order_by("id")[:items_per_unit])
    batch = batch_create(
        project=project, name="browser", items=items, items_per_unit=items_per_unit, assignments_per_unit=1
    )
    return invite_link_create(batch=batch)


def current_response(page) -> Response:
    return Response.objects.select_related("item").get(pk=page.get_attribute("input[name=response]", "value"))


@pytest.mark.parametrize("lang", ["hr", "en"])
def test_annotator_does_both_pages_for_each_item_of_a_unit(live_server, page, lang):
    invite = make_invite(lang)
    page.goto(live_server.url + reverse("surveys:invite", args=[invite.token]))
    page.locator("form button[type=submit]").click()
    words = [("rijeka", "čamac"), ("šuma", "drvo")]
    for number, (first, second) in enumerate(words):
        assert page.get_attribute("#page-form", "data-page") == "inspired"
        response = current_response(page)
        payload = response.item.payload
        context = payload[f"context{payload['context']}"]
        assert page.locator(".context-text").inner_text() == plain_context(context).strip()
        assert page.locator(".context-text strong, .context-text b").count() == 0
        page.fill("input[name=word_1]", first)
        page.fill("input[name=word_2]", second)
        submit_page(page)

        assert page.get_attribute("#page-form", "data-page") == "rating"
        n = payload["context"]
        bold = page.locator(".context-text strong.target").all_inner_texts()
        assert sorted(bold) == sorted([payload[f"word1_context{n}"], payload[f"word2_context{n}"]])
        assert page.locator("input[name=rating]").count() == 7
        page.locator(f"input[name=rating][value='{number + 4}']").check()
        submit_page(page)

        response.refresh_from_db()
        assert response.answers == {"inspired": {"word_1": first, "word_2": second}, "rating": {"rating": number + 4}}
        assert response.completed_at is not None
    assert page.locator("#done").is_visible()
    assert Assignment.objects.get().status == Assignment.Status.SUBMITTED


def test_back_to_page_one_after_rating_page_opened_cannot_change_the_words(live_server, page):
    invite = make_invite("sl", items_per_unit=1)
    page.goto(live_server.url + reverse("surveys:invite", args=[invite.token]))
    page.locator("form button[type=submit]").click()
    page.fill("input[name=word_1]", "morje")
    page.fill("input[name=word_2]", "ladja")
    submit_page(page)
    assert page.get_attribute("#page-form", "data-page") == "rating"
    page.go_back()  # the cached page 1 (no-store: the browser fetches it again and shows the rating page)
    if page.get_attribute("#page-form", "data-page") == "inspired":
        page.fill("input[name=word_1]", "drugo")
        submit_page(page)
    response = Response.objects.get()
    assert response.answers["inspired"] == {"word_1": "morje", "word_2": "ladja"}
    assert page.get_attribute("#page-form", "data-page") == "rating"


def test_the_scale_is_one_row_and_the_question_stays_inside_its_box_on_a_phone(live_server, page):
    """Issue 38: at 390 px the seven points of the 0-6 scale sit on one row (its two ends above
    them), and the long question (the legend) wraps inside the box instead of across its border."""
    page.set_viewport_size({"width": 390, "height": 844})
    invite = make_invite("hr", items_per_unit=1)
    page.goto(live_server.url + reverse("surveys:invite", args=[invite.token]))
    page.locator("form button[type=submit]").click()
    page.fill("input[name=word_1]", "rijeka")
    page.fill("input[name=word_2]", "čamac")
    submit_page(page)
    assert page.get_attribute("#page-form", "data-page") == "rating"
    tops = page.evaluate(
        "() => Array.from(document.querySelectorAll('label.scale-point')).map(l => Math.round(l.getBoundingClientRect().top))"
    )
    assert len(tops) == 7 and len(set(tops)) == 1, tops
    inside = page.evaluate(
        """() => {
          const box = document.querySelector('fieldset.rating'), legend = box.querySelector('legend');
          const b = box.getBoundingClientRect(), l = legend.getBoundingClientRect();
          const border = parseFloat(getComputedStyle(box).borderTopWidth);
          return [l.top >= b.top + border, l.right <= b.right, document.documentElement.scrollWidth <= innerWidth];
        }"""
    )
    assert inside == [True, True, True]
