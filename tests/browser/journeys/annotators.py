"""Annotators of each kind, driven in a real browser the way a person works: open the link,
read the instructions, start, and answer whatever page is shown until there is no more work.

Each kind's `answer` fills the page it is shown from the item's own payload (read through the
page's response id, as the page itself knows it). `who` makes annotators differ the way people
do: annotator 0 follows the gold where the item has one, the others depart from it in places,
so that agreement, adjudication and the quality rules all have something to work on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from annotation.models import Response
from tests.browser.recam_driver import ReCAMPage, page_frame, pick_span

Answer = Callable[["Annotator", Response, str], None]


def submit(page: Any) -> None:
    """Press "Save and continue" and wait for what comes next: the next page swapped in by the
    page's script, or (the last page of a recruiting site's unit) the site's own page."""
    top = page.page if hasattr(page, "parent_frame") else page
    with top.expect_response(lambda r: r.request.method == "POST" and r.request.frame == page_frame(page)):
        page.click("#next")
    try:
        page.wait_for_function("() => !document.querySelector('#page-form[data-sending]')")
    except PlaywrightError:  # the page went away: a navigation to the site's completion page
        top.wait_for_load_state()


@dataclass
class Annotator:
    """One person in their own browser context; `page` is a Playwright Page, or a Frame (MTurk)."""

    page: object
    answer: Answer
    who: int = 0
    items_done: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str | None:
        return self.page.get_attribute("#page-form", "data-page") if self.page.query_selector("#page-form") else None

    def response(self) -> Response:
        return Response.objects.select_related("item").get(pk=self.page.input_value("input[name=response]"))

    def start_from_invite(self, url: str) -> None:
        self.page.goto(url)
        assert self.page.locator("#instructions").is_visible()
        with self.page.expect_navigation():
            self.page.click("#start")

    def current_item(self) -> str:
        return self.response().item.external_id

    def answer_page(self) -> None:
        """Answer the page shown and save it (the next page is swapped in by the page's script)."""
        response = self.response()
        slug = self.slug
        assert slug is not None, "no page to answer"
        self.answer(self, response, slug)
        if response.item.external_id not in self.items_done:
            self.items_done.append(response.item.external_id)

    def work(self, *, items: int | None = None, pages: int = 400) -> None:
        """Answer pages until there is no work left, or the person was sent back to the recruiting
        site, or `items` items were started and the last one finished; `pages` bounds the loop so
        a page that never advances fails the test."""
        for _ in range(pages):
            if self.page.locator("#done").count() or not self.page.locator("#page-form").count():
                return
            if items is not None and len(self.items_done) >= items and self._at_new_item():
                return
            self.answer_page()
        raise AssertionError(f"still working after {pages} pages")

    def _at_new_item(self) -> bool:
        return self.slug is not None and self.current_item() not in self.items_done[-1:]


def recam(annotator: Annotator, response: Response, slug: str) -> None:
    """ReCAM: the gold option (annotator 0) or the next one; spans dragged with the mouse."""
    driver = ReCAMPage(annotator.page)
    payload = response.item.payload
    label = payload.get("label", 0)
    choice = label if annotator.who == 0 else (label + annotator.who) % 5
    if slug in ("pre", "post"):
        driver.choose("choice", str(choice))
    elif slug == "second":
        driver.choose("choice", "none")
    elif slug in ("support_span", "summary_span"):
        span = pick_span(payload["article"], skip_words=(2 if slug == "support_span" else 12) + annotator.who)
        assert driver.select_in_passage(span) == span.text
    elif slug == "relation":
        driver.choose("relation", "summarize" if annotator.who == 0 else "paraphrase")
    elif slug == "difficulty":
        driver.choose("difficulty", ["easy", "medium", "hard"][annotator.who % 3])
    else:  # pragma: no cover - a new page needs a branch here
        raise AssertionError(f"unknown ReCAM page {slug}")
    submit(annotator.page)


def cosimlex(annotator: Annotator, response: Response, slug: str) -> None:
    """CoSimLex: two words inspired by the plain context, then a 0-6 rating with the targets bold."""
    page = annotator.page
    if slug == "inspired":  # two words the context brought to mind: here, two of its own words
        words = [w for w in re.findall(r"\w+", page.inner_text(".context-text")) if len(w) > 4 and w.isalpha()]
        first, second = words[annotator.who % len(words)], words[-1 - annotator.who % len(words)]
        page.fill("input[name=word_1]", first.lower())
        page.fill("input[name=word_2]", second.lower())
    elif slug == "rating":
        rating = (response.item.pk * 2 + annotator.who) % 7  # differs by item and, by one, by annotator
        page.locator(f"input[name=rating][value='{rating}']").check()
    else:  # pragma: no cover
        raise AssertionError(f"unknown CoSimLex page {slug}")
    submit(page)


def gcrc(annotator: Annotator, response: Response, slug: str) -> None:
    """GCRC: the answer where the item has none; per option, sentences tapped, a skill, and an
    error reason exactly when the option is (pre-set) wrong. Annotator 1 departs from annotator 0
    on option A's sentences and option B's skill, so every item they share has fields to adjudicate."""
    page = annotator.page
    if slug == "answer":
        page.locator("input[name=answer]").first.check()
        submit(page)
        return
    letter = slug.removeprefix("option_")
    sentences = len(response.item.payload["sentences"])
    index = "abcd".index(letter) % sentences
    if letter == "a" and annotator.who:
        index = (index + 1) % sentences
    page.locator(f"label.sentence[data-index='{index}'] .n").click()
    skill = "CAUS-R" if letter == "b" and annotator.who else "DTL-R"
    page.locator(f"input[name=skill][value='{skill}']").check()
    if page.locator("input[name=wrong]").is_checked():
        page.select_option("select[name=error]", "DTL")
    submit(page)


def scde(annotator: Annotator, response: Response, slug: str) -> None:
    """SCDE: every blank gets a distinct candidate (the gold for annotator 0, the gold shifted by
    one for the others), then a difficulty; the page's script disables used candidates."""
    page = annotator.page
    assert slug == "passage"
    page.wait_for_selector("#page-form[data-scde-ready]", state="attached")
    payload = response.item.payload
    gold = {int(b): int(c) for b, c in (payload.get("gold") or {}).items()}
    candidates = len(payload["candidates"])
    chosen: dict[int, int] = {}
    for blank in payload["blanks"]:
        wanted = gold.get(blank, blank - 1)  # an unlabeled passage: candidates in order
        candidate = wanted if annotator.who == 0 else (wanted + annotator.who) % candidates
        while candidate in chosen.values():
            candidate = (candidate + 1) % candidates
        chosen[blank] = candidate
        page.select_option(f"select[name=blank_{blank}]", str(candidate))
    page.locator("input[name=difficulty]").nth(annotator.who % 3).check()
    submit(page)


KINDS: dict[str, Answer] = {"recam": recam, "cosimlex": cosimlex, "gcrc": gcrc, "scde": scde}
