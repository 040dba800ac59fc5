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


#: the text node and offsets of a word's first occurrence in a span question's text as shown
#: (UTF-16 units, CRLF read as LF), and the screen boxes of its first and last characters
_WORD = """([question, word]) => {
  const box = document.querySelector(`[data-span-text='${question}']`);
  const shownWord = word.replace(/\\r\\n?/g, "\\n");
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let all = "";
  for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, all.length]); all += n.data; }
  const start = all.indexOf(shownWord);
  const end = start + shownWord.length;
  const place = (offset, atEnd) => {
    for (const [n, from] of nodes) {
      if (offset < from + n.data.length || (atEnd && offset === from + n.data.length)) { return [n, offset - from]; }
    }
    const [n, from] = nodes[nodes.length - 1]; return [n, offset - from];
  };
  const rect = (offset) => {
    const [n, o] = place(offset, false);
    const range = document.createRange();
    range.setStart(n, o); range.setEnd(n, o + 1);
    const r = range.getClientRects()[0];
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  // the last character of the word may be two UTF-16 units (an astral letter)
  const lastStart = end - 1 - (/[\\uDC00-\\uDFFF]/.test(all[end - 1]) ? 1 : 0);
  return {start, end, first: rect(start), last: rect(lastStart)};
}"""

#: select the word's first occurrence with the selection API alone, as a long press and the
#: selection handles do on a phone (no mouse events)
_SELECT_WORD = """([question, word]) => {
  const box = document.querySelector(`[data-span-text='${question}']`);
  const shownWord = word.replace(/\\r\\n?/g, "\\n");
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const at = n.data.indexOf(shownWord);
    if (at >= 0) { window.getSelection().setBaseAndExtent(n, at, n, at + shownWord.length); return true; }
  }
  return false;
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

    def mark_word(self, question: str, word: str, label: str | None = None) -> None:
        """Drag the mouse over a word of the question's text, from its first character to its
        last as a reader's eye goes (right to left in right-to-left text); pick the label."""
        self.page.locator(f"[data-span-text='{question}']").scroll_into_view_if_needed()
        found = self.page.evaluate(_WORD, [question, word])
        assert found["start"] >= 0, f"{word!r} is not shown in {question}"
        first, last = found["first"], found["last"]
        rtl = last["left"] < first["left"] and abs(last["top"] - first["top"]) < 2
        x_from = first["right"] - 1 if rtl else first["left"] + 1
        x_to = last["left"] + 1 if rtl else last["right"] - 1
        mouse = self.page.mouse
        mouse.move(x_from, (first["top"] + first["bottom"]) / 2)
        mouse.down()
        mouse.move(x_to, (last["top"] + last["bottom"]) / 2, steps=8)
        mouse.up()
        self._pick(question, label)

    def touch_select_word(self, question: str, word: str, label: str | None = None) -> None:
        """Select a word as a phone's long press does (the selection API, no mouse), then tap
        the label button (or "Mark the selection")."""
        assert self.page.evaluate(_SELECT_WORD, [question, word]), f"{word!r} is not shown in {question}"
        self._pick(question, label if label is not None else "", tap=True)

    def _pick(self, question: str, label: str | None, tap: bool = False) -> None:
        if label is None:
            return
        selector = f"[data-for='{question}'][data-span-label='{label}']"
        self.page.wait_for_function("(sel) => !document.querySelector(sel).disabled", arg=selector)
        button = self.page.locator(selector)
        button.tap() if tap else button.click()

    def spans(self, question: str) -> list[dict]:
        import json

        return json.loads(self.page.input_value(f"input[name='{question}']") or "[]")

    def save(self) -> None:
        """Save the page; wait for the next one's script when there is a next page."""
        submit_page(self.page)
        if self.page.locator("#page-form").count():
            self.ready()
