"""Driving the ReCAM annotator pages the way a person does: clicks, mouse selections, submits."""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotation.kinds.spans import find_span
from annotation.models import Response

PAGES = ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"]

# Select text from character `start` to `end` of the passage's text node with a real mouse drag:
# the page's own script (static/surveys/annotate.js) then copies the selection into the box.
_CHAR_BOXES = """([start, end]) => {
  const source = document.querySelector('[data-span-source]');
  const node = [...source.childNodes].find(n => n.nodeType === Node.TEXT_NODE);
  const box = (from, to) => {
    const range = document.createRange();
    range.setStart(node, from);
    range.setEnd(node, to);
    const r = range.getClientRects()[0];
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  return {first: box(start, start + 1), last: box(end - 1, end), text: node.data.slice(start, end)};
}"""


def submit_page(page, action=None) -> None:
    """Press "Save and continue" (or run ``action``) and wait for the next page.

    The page's script sends the form with fetch and swaps the server's answer (the next page)
    into ``<main>``; there is no navigation to wait for. ``page`` may be a Frame (MTurk's iframe).
    """
    top = page.page if hasattr(page, "parent_frame") else page
    with top.expect_response(lambda r: r.request.method == "POST" and r.request.frame == page_frame(page)):
        (action or (lambda: page.click("#next")))()
    page.wait_for_function("() => !document.querySelector('#page-form[data-sending]')")


def page_frame(page):
    return page if hasattr(page, "parent_frame") else page.main_frame


@dataclass(frozen=True)
class Span:
    text: str
    start: int
    end: int


def pick_span(article: str, *, skip_words: int, words: int = 5) -> Span:
    """A run of whole words, after `skip_words`, whose first occurrence is where we take it."""
    bounds = [m.span() for m in re.finditer(r"\S+", article)]
    for first in range(skip_words, len(bounds) - words):
        start, end = bounds[first][0], bounds[first + words - 1][1]
        if "\r" in article[:end]:  # the HTML parser folds CR, which would shift DOM offsets
            break
        if find_span(article, article[start:end]) == (start, end):
            return Span(article[start:end], start, end)
    raise AssertionError("no usable span in this article")


def plain_chunk(article: str, length: int = 40) -> str:
    """A piece of the passage with no characters HTML would escape, to look for in page sources."""
    match = re.search(rf"[A-Za-z0-9 ,.]{{{length},}}", article)
    assert match, "article has no plain run of text"
    return match.group(0)[:length]


class ReCAMPage:
    """``page`` is a Playwright Page, or a Frame (MTurk's iframe): the mouse is its page's, moved
    in the top page's coordinates, so selections inside a frame are offset by the frame's box."""

    def __init__(self, page):
        self.page = page
        self.top = page.page if hasattr(page, "parent_frame") else page

    @property
    def slug(self) -> str:
        return self.page.get_attribute("#page-form", "data-page")

    def response(self) -> Response:
        return Response.objects.select_related("item").get(pk=self.page.input_value("input[name=response]"))

    def progress(self) -> str:
        return self.page.inner_text("#progress")

    def start_from_invite(self, url: str) -> None:
        self.page.goto(url)
        instructions = self.page.locator("#instructions")
        assert instructions.is_visible()
        assert "Select text in the passage" in instructions.inner_text()
        with self.page.expect_navigation():
            self.page.click("#start")
        assert self.slug == "pre"

    def choose(self, name: str, value: str) -> None:
        self.page.check(f'input[name="{name}"][value="{value}"]')

    def submit(self) -> None:
        submit_page(self.page)

    def select_in_passage(self, span: Span) -> str:
        """Drag the mouse over the span in the passage; returns what the box then holds."""
        self.page.locator("[data-span-source]").scroll_into_view_if_needed()
        boxes = self.page.evaluate(_CHAR_BOXES, [span.start, span.end])
        assert boxes["text"] == span.text
        first, last = boxes["first"], boxes["last"]
        dx, dy = self._frame_offset()
        mouse = self.top.mouse
        mouse.move(dx + first["left"] + 1, dy + (first["top"] + first["bottom"]) / 2)
        mouse.down()
        mouse.move(dx + last["right"] - 1, dy + (last["top"] + last["bottom"]) / 2, steps=8)
        mouse.up()
        return self.page.input_value("textarea[name=text]")

    def _frame_offset(self) -> tuple[float, float]:
        """Where the frame's viewport starts in the top page (0, 0 for a page)."""
        if self.page is self.top or self.page.parent_frame is None:
            return 0.0, 0.0
        return tuple(
            self.page.frame_element().evaluate(
                "el => {const r = el.getBoundingClientRect(); return [r.left + el.clientLeft, r.top + el.clientTop];}"
            )
        )

    def answer_current_page(self, *, second_choice: str = "none") -> None:
        """Answer whatever page is shown: the gold option, mouse-selected spans, and so on."""
        slug = self.slug
        article = self.response().item.payload["article"]
        label = str(self.response().item.payload["label"])
        if slug in ("pre", "post"):
            self.choose("choice", label)
        elif slug == "second":
            self.choose("choice", second_choice)
        elif slug in ("support_span", "summary_span"):
            span = pick_span(article, skip_words=2 if slug == "support_span" else 12)
            assert self.select_in_passage(span) == span.text
        elif slug == "relation":
            self.choose("relation", "summarize")
        elif slug == "difficulty":
            self.choose("difficulty", "easy")
        else:  # pragma: no cover - a new page needs a branch here
            raise AssertionError(f"unknown page {slug}")
        self.submit()
