"""An annotator in a real browser: invite link -> instructions -> the seven ReCAM pages per item."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from annotation.models import Assignment, Response

from .recam_driver import PAGES, ReCAMPage, pick_span, plain_chunk, submit_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def invite_url(live_server, invite) -> str:
    return live_server.url + reverse("surveys:invite", args=[invite.token])


def test_annotator_completes_a_whole_unit(live_server, page, make_invite):
    invite = make_invite(items=2, items_per_unit=2)
    annotator = ReCAMPage(page)
    annotator.start_from_invite(invite_url(live_server, invite))
    # every saved page is one POST answered with the next page, swapped into this document
    page.evaluate("window.sameDocument = true")
    requests: list = []
    page.on("request", lambda r: requests.append(r.method) if r.resource_type in ("document", "fetch") else None)

    seen = []
    for item_number in (1, 2):
        for step, slug in enumerate(PAGES, start=1):
            assert annotator.slug == slug
            assert f"Item {item_number} of 2" in annotator.progress()
            assert f"Step {step} of 7" in annotator.progress()
            # the first item says "No Other Answer"; the second names a different option
            label = annotator.response().item.payload["label"]
            annotator.answer_current_page(second_choice="none" if item_number == 1 else str((label + 1) % 5))
            seen.append(slug)
    assert page.locator("#done").is_visible()
    assert seen == PAGES * 2
    assert page.evaluate("window.sameDocument") is True
    assert requests == ["POST"] * 14  # the last one answered with the "done" page

    assignment = Assignment.objects.get()
    assert assignment.status == Assignment.Status.SUBMITTED
    responses = list(Response.objects.filter(assignment=assignment).select_related("item").order_by("position"))
    assert len(responses) == 2
    for number, response in enumerate(responses):
        payload, answers = response.item.payload, response.answers
        assert response.completed_at is not None
        assert set(answers) == set(PAGES)  # (jsonb on PostgreSQL does not keep key order)
        assert answers["pre"] == answers["post"] == {"choice": payload["label"]}
        expected_second = None if number == 0 else (payload["label"] + 1) % 5
        assert answers["second"] == {"choice": expected_second}
        assert answers["relation"] == {"relation": "summarize"}
        assert answers["difficulty"] == {"difficulty": "easy"}
        for slug, skip in (("support_span", 2), ("summary_span", 12)):
            span = pick_span(payload["article"], skip_words=skip)
            assert answers[slug] == {"text": span.text, "start": span.start, "end": span.end}
            assert payload["article"][answers[slug]["start"] : answers[slug]["end"]] == answers[slug]["text"]
        assert set(response.timings) == set(PAGES)
        spent = [timing["seconds"] for timing in response.timings.values()]  # time per page is recorded
        assert all(value is not None and value >= 0 for value in spent)


def test_reload_mid_item_resumes_and_back_button_neither_duplicates_nor_loses(live_server, page, context, make_invite):
    invite = make_invite(items=2, items_per_unit=2)
    annotator = ReCAMPage(page)
    annotator.start_from_invite(invite_url(live_server, invite))
    for _ in range(3):  # pre, post, second
        annotator.answer_current_page()
    assert annotator.slug == "support_span"
    work_url = page.url
    current = annotator.response()
    saved = current.answers

    page.reload()
    assert annotator.slug == "support_span"
    assert "Step 4 of 7" in annotator.progress()

    # coming back later with the same link (a new browser session) resumes there too
    later = context.browser.new_context()
    try:
        other = later.new_page()
        other.goto(work_url)
        assert ReCAMPage(other).slug == "support_span"
    finally:
        later.close()

    # back: whatever the browser shows, submitting it must not lose or duplicate an answer
    page.go_back()
    shown = annotator.slug
    assert shown in ("second", "support_span")
    annotator.answer_current_page()
    response = Response.objects.get(pk=current.pk)
    assert Response.objects.filter(assignment__annotator__batch=invite.batch).count() == 2
    for slug in ("pre", "post", "second"):
        assert response.answers[slug] == saved[slug]
    expected_next = "support_span" if shown == "second" else "relation"
    assert annotator.slug == expected_next
    # and the rest of the item still goes through
    while annotator.slug != "pre":
        annotator.answer_current_page()
    first = Response.objects.filter(assignment__annotator__batch=invite.batch).order_by("position").first()
    assert set(first.answers) == set(PAGES) and first.completed_at is not None


def test_stale_tab_cannot_change_a_locked_answer_or_duplicate_one(live_server, context, page, make_invite):
    """What a back button to a cached page amounts to: submitting a form the server has moved past."""
    invite = make_invite(items=1, items_per_unit=1)
    first = ReCAMPage(page)
    first.start_from_invite(invite_url(live_server, invite))
    stale = ReCAMPage(context.new_page())
    stale.page.goto(page.url)
    assert first.slug == stale.slug == "pre"
    label = first.response().item.payload["label"]

    first.answer_current_page()  # pre = the gold option
    stale.choose("choice", str((label + 1) % 5))  # a different pre-reading answer, from the old page
    stale.submit()
    assert "is final and cannot be changed" in stale.page.inner_text(".messages")
    assert stale.slug == "post"  # and the stale tab is brought to where the work is

    stale.answer_current_page()  # post
    first.choose("choice", str(label))  # the same post answer again from the other tab
    first.submit()
    assert first.slug == "second"
    response = Response.objects.get()
    assert response.answers == {"pre": {"choice": label}, "post": {"choice": label}}
    assert Response.objects.count() == 1


def test_passage_absent_from_every_response_until_pre_answer_saved(live_server, page, context, make_invite):
    invite = make_invite(items=1, items_per_unit=1)
    bodies: list[tuple[str, str]] = []

    def keep_body(response):
        try:
            bodies.append((response.url, response.text()))
        except Exception:  # redirects have no body
            pass

    page.on("response", keep_body)
    annotator = ReCAMPage(page)
    annotator.start_from_invite(invite_url(live_server, invite))
    assert annotator.slug == "pre"
    article = annotator.response().item.payload["article"]
    chunk = plain_chunk(article)

    assert page.locator("#passage").count() == 0
    assert chunk not in page.content()
    raw = context.request.get(page.url)  # the raw HTTP body, with this browser's cookies
    assert raw.ok and 'data-page="pre"' in raw.text()
    assert chunk not in raw.text() and escape(article[:80]) not in raw.text()
    page.wait_for_load_state("networkidle")
    assert bodies, "no responses were recorded"
    for url, body in bodies:
        assert chunk not in body, f"the passage leaked in {url}"

    annotator.answer_current_page()  # the pre-reading answer is saved
    assert annotator.slug == "post"
    assert page.locator("#passage").is_visible()
    assert chunk in page.content()
    raw = context.request.get(page.url)
    assert chunk in raw.text()


def test_double_click_on_submit_saves_once(live_server, page, context, make_invite):
    invite = make_invite(items=1, items_per_unit=1)
    posts: list = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    annotator = ReCAMPage(page)
    annotator.start_from_invite(invite_url(live_server, invite))
    posts.clear()  # the Start button's POST

    label = str(annotator.response().item.payload["label"])
    annotator.choose("choice", label)
    submit_page(page, lambda: page.dblclick("#next"))
    page.wait_for_load_state("networkidle")
    assert annotator.slug == "post"
    assert len(posts) == 1, posts

    response = Response.objects.get()
    assert response.answers == {"pre": {"choice": int(label)}}
    assert list(response.timings) == ["pre"]

    # the same POST arriving again (a click the script did not catch) changes nothing either
    replay = context.request.post(
        posts[0].url,
        data=posts[0].post_data,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        max_redirects=0,
    )
    assert replay.status == 302
    saved_timings = response.timings
    response.refresh_from_db()
    assert response.answers == {"pre": {"choice": int(label)}}
    assert response.timings == saved_timings

    # and a double click on a later page advances exactly one page too
    annotator.choose("choice", label)
    submit_page(page, lambda: page.dblclick("#next"))
    page.wait_for_load_state("networkidle")
    assert annotator.slug == "second"
    assert len(posts) == 2, posts
    response.refresh_from_db()
    assert set(response.answers) == {"pre", "post"}


# What a long press and its handles do on a touch screen: touch pointer events, then the browser
# sets the selection. No mouse event at all (a mouseup-only script never saw it).
TOUCH_SELECT = """([start, end]) => {
  const source = document.querySelector('[data-span-source]');
  const node = [...source.childNodes].find(n => n.nodeType === Node.TEXT_NODE);
  const at = {bubbles: true, cancelable: true, pointerType: 'touch', isPrimary: true, pointerId: 7};
  source.dispatchEvent(new PointerEvent('pointerdown', at));
  const range = document.createRange();
  range.setStart(node, start);
  range.setEnd(node, end);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  source.dispatchEvent(new PointerEvent('pointerup', at));
}"""


@pytest.fixture
def phone(browser):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True, has_touch=True
    )
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def test_a_span_selected_by_touch_on_a_phone_is_saved(live_server, phone, make_invite):
    page = phone
    annotator = ReCAMPage(page)
    page.goto(invite_url(live_server, make_invite(items=1, items_per_unit=1)))
    with page.expect_navigation():
        page.tap("#start")
    for _ in range(3):  # pre, post, second
        label = str(annotator.response().item.payload["label"])
        value = "none" if annotator.slug == "second" else label
        page.tap(f'input[name=choice][value="{value}"]')
        submit_page(page, lambda: page.tap("#next"))
    assert annotator.slug == "support_span"
    article = annotator.response().item.payload["article"]
    span = pick_span(article, skip_words=2)
    page.evaluate(TOUCH_SELECT, [span.start, span.end])
    page.wait_for_function("t => document.querySelector('textarea[name=text]').value === t", arg=span.text)
    submit_page(page, lambda: page.tap("#next"))
    assert annotator.slug == "relation"
    assert annotator.response().answers["support_span"] == {"text": span.text, "start": span.start, "end": span.end}
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
