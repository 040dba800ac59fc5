"""Driving a task-file page in a real browser as a person does: clicks, number keys, a mouse
drag over the text for a span, a tick per sentence. Shared by the task-file browser tests."""

from __future__ import annotations

from typing import Any

from tests.browser.recam_driver import submit_page

#: the screen boxes of the first and last characters of [start, end) in a span question's text,
#: found across the text nodes the page's marks split it into
_CHAR_BOXES = """([question, start, end]) => {
  const box = document.querySelector(`[data-span-text='${question}']`);
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let at = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, at]); at += n.data.length; }
  const place = (offset) => {
    for (const [n, from] of nodes) { if (offset < from + n.data.length) { return [n, offset - from]; } }
    const [n, from] = nodes[nodes.length - 1]; return [n, offset - from];
  };
  const rect = (offset) => {
    const [n, o] = place(offset);
    const range = document.createRange();
    range.setStart(n, o); range.setEnd(n, o + 1);
    const r = range.getClientRects()[0];
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  return {first: rect(start), last: rect(end - 1), text: box.textContent.slice(start, end)};
}"""


class TaskFilePage:
    def __init__(self, page: Any):
        self.page = page

    @property
    def slug(self) -> str:
        return self.page.get_attribute("#page-form", "data-page")

    def ready(self) -> None:
        self.page.wait_for_selector("#page-form[data-taskfile]", state="attached")

    def choose(self, question: str, value: Any) -> None:
        self.page.locator(f"input[name='{question}'][value='{value}']").check()

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    def fill(self, question: str, text: str) -> None:
        self.page.locator(f"[name='{question}']").fill(text)

    def slide(self, question: str, value: Any) -> None:
        self.page.locator(f"input[name='{question}']").fill(str(value))

    def tick_sentences(self, question: str, numbers: list[int]) -> None:
        for n in numbers:
            self.page.locator(f"[data-sentences='{question}'] input[value='{n}']").check()

    def mark_span(self, question: str, start: int, end: int, label: str | None = None) -> str:
        """Drag the mouse over [start, end) of the question's text; pick the label by its button."""
        self.page.locator(f"[data-span-text='{question}']").scroll_into_view_if_needed()
        boxes = self.page.evaluate(_CHAR_BOXES, [question, start, end])
        first, last = boxes["first"], boxes["last"]
        mouse = self.page.mouse
        mouse.move(first["left"] + 1, (first["top"] + first["bottom"]) / 2)
        mouse.down()
        mouse.move(last["right"] - 1, (last["top"] + last["bottom"]) / 2, steps=8)
        mouse.up()
        if label is not None:
            button = self.page.locator(f"[data-for='{question}'][data-span-label='{label}']")
            button.wait_for(state="visible")
            self.page.wait_for_function(
                "(sel) => !document.querySelector(sel).disabled",
                arg=f"[data-for='{question}'][data-span-label='{label}']",
            )
            button.click()
        return boxes["text"]

    def spans(self, question: str) -> list[dict]:
        import json

        return json.loads(self.page.input_value(f"input[name='{question}']") or "[]")

    def save(self) -> None:
        """Save the page; wait for the next one's script when there is a next page."""
        submit_page(self.page)
        if self.page.locator("#page-form").count():
            self.ready()
