"""An annotator of any task file, in a real browser: the generic page (surveys/taskfile/page.html)
answered question by question as a person would (radio buttons, check boxes, Likert rows, a
slider, number and text boxes, spans selected with the mouse, sentences tapped), from the task
file itself and the item.

Annotator 0 gives the gold answer where the item has one; annotator 1 gives another; elsewhere
they agree on some items and not on others, so agreement, gold accuracy and the report have
something to show. A condition on an answer (show_if) is followed as the file says; a page with
`min_seconds` is saved only once that long has passed since it was shown (the server refuses it
sooner, which would be a failed request)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ruamel.yaml import YAML

from annotation.models import Response
from tests.browser.recam_driver import plain_chunk
from tests.browser.taskfile_driver import TaskFilePage

from .annotators import Annotator, submit

#: a margin over `min_seconds` for the server's clock and the request's way there
MARGIN_SECONDS = 0.3


@cache
def task_data(text: str) -> dict[str, Any]:
    """The task file as plain data (the YAML loader reads the JSON files too)."""
    return json.loads(json.dumps(YAML(typ="safe", pure=True).load(text)))


@dataclass
class FileAnnotator(Annotator):
    """An Annotator that knows when its page was shown (for pages with `min_seconds`) and what
    it answered (for conditions on its own answers); `filled`: every answer it gave, as
    (response id, question id, value), to find again in the exports."""

    page: Any  # a Playwright Page (Annotator says `object`, for a Frame too)
    shown_at: float = 0.0
    filled: list[tuple[int, str, Any]] = field(default_factory=list)

    def start_from_invite(self, url: str, *, instructions: str = "") -> None:
        """Open the link, read the instructions (`instructions`: words they must hold), start."""
        if instructions:
            self.page.goto(url)
            assert " ".join(instructions.split()) in " ".join(self.page.inner_text("#instructions").split())
        super().start_from_invite(url)
        self.shown_at = time.monotonic()

    def answer_page(self) -> None:
        super().answer_page()
        self.shown_at = time.monotonic()


def work_together(people: list[FileAnnotator], *, pages: int = 400) -> None:
    """Everyone answers one page in turn until nobody has work left: the pages' minimum times
    run side by side instead of one after the other."""
    for _ in range(pages):
        busy = [p for p in people if p.page.locator("#page-form").count() and not p.page.locator("#done").count()]
        if not busy:
            return
        for someone in busy:
            someone.answer_page()
    raise AssertionError(f"still working after {pages} rounds")


def answer(annotator: Annotator, response: Response, slug: str) -> None:
    """The `Answer` of annotators.Annotator for a task-file page."""
    assert isinstance(annotator, FileAnnotator)
    task = task_data(response.item.project.task_file)
    page_spec = next(p for p in task["pages"] if p["id"] == slug)
    payload = response.item.payload
    given = {q: v for answers in response.answers.values() for q, v in (answers or {}).items()}
    html = annotator.page.content()
    reveals_kept(html, task, payload, response.answers)
    markdown_safe(html, task, payload)
    translated(annotator.page, task, page_spec, response.item.project.language)
    for question in page_spec["questions"]:
        condition = question.get("show_if")
        if condition is not None and not holds(condition, given.get(condition["question"])):
            assert annotator.page.locator(f"#q-{question['id']}").is_hidden(), question["id"]
            continue
        value = FILL[question["type"]](annotator, question, payload, response.item.pk)
        given[question["id"]] = value
        annotator.filled.append((response.pk, question["id"], value))
    minimum = float(page_spec.get("min_seconds", 0))
    wait = minimum - (time.monotonic() - annotator.shown_at)
    if minimum:  # the page says how long, and its button waits that long
        assert annotator.page.get_attribute("[data-min-seconds]", "data-min-seconds") == f"{minimum:g}"
        if wait > 1:
            assert annotator.page.locator("#next").is_disabled()
    if wait > 0:
        time.sleep(wait + MARGIN_SECONDS)
    submit(annotator.page)


def holds(condition: dict[str, Any], answer: Any) -> bool:
    """A `show_if`, as the file states it (compared as text; lists hold the value)."""
    if answer is None:
        return False
    given = {str(v) for v in answer} if isinstance(answer, list) else {str(answer)}
    if "in" in condition:
        return bool(given & {str(v) for v in condition["in"]})
    if "equals" in condition:
        return str(condition["equals"]) in given
    return str(condition["not_equals"]) not in given


def reveals_kept(html: str, task: dict[str, Any], payload: dict[str, Any], answers: dict) -> None:
    """A key shown `reveal_after` a page is not in the page's source until that page is saved."""
    for shown in task["item"]["show"]:
        after = shown.get("reveal_after")
        if not after:
            continue
        first = re.split(r"(?<=[.!?])\s+", text_of(payload[shown["key"]]))[0]
        text = plain_chunk(first, length=20)
        assert (text in html) == (after in answers), (shown["key"], after in answers)


def markdown_safe(html: str, task: dict[str, Any], payload: dict[str, Any]) -> None:
    """A key shown `as: markdown` is rendered (bold is bold) and its raw HTML shown as text."""
    for shown in task["item"]["show"]:
        value = str(payload.get(shown["key"]) or "")
        if shown.get("as") != "markdown":
            continue
        bold = re.search(r"\*\*([^*]+)\*\*", value)
        if bold:
            assert f"<strong>{bold.group(1)}</strong>" in html, bold.group(1)
        for tag in re.findall(r"<(\w+)>", value):
            assert f"&lt;{tag}&gt;" in html and f"<{tag}>" not in html, tag


def translated(page: Any, task: dict[str, Any], page_spec: dict[str, Any], language: str) -> None:
    """A page title with a translation in the project's language is shown translated."""
    words = (task.get("translations") or {}).get(language) or {}
    title = page_spec.get("title", "")
    if title in words:
        assert words[title] in page.inner_text("main"), (language, title)


# --- one function per question type: fill it in, return the value it stores ---------------------


def text_of(value: Any) -> str:
    return " ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _gold(question: dict[str, Any], payload: dict[str, Any]) -> str | None:
    gold = payload.get(question.get("gold") or "")
    return None if gold in (None, "") else str(gold)


def _pick(values: list[str], question: dict[str, Any], payload: dict[str, Any], who: int, seed: int) -> str:
    """The gold (annotator 0) or the next option (the others); without gold, the same option on
    even items and neighbours on odd ones."""
    gold = _gold(question, payload)
    if gold is not None and gold in values:
        return gold if who == 0 else values[(values.index(gold) + who) % len(values)]
    return values[(seed + who * (seed % 2)) % len(values)]


def _choose(annotator: FileAnnotator, question: dict[str, Any], value: str) -> None:
    """Tick one radio button: annotator 1 with its number or letter key where the page shows
    one (the keys answer the question that has the focus), the others with the mouse."""
    page, qid = annotator.page, question["id"]
    radio = page.locator(f"#q-{qid} input[type=radio][value='{value}']")
    key = page.locator(f"#q-{qid} label:has(input[value='{value}']) kbd")
    if annotator.who == 1 and key.count():
        page.locator(f"#q-{qid} input[type=radio]").first.focus()
        page.keyboard.press(key.inner_text())
        assert radio.is_checked(), (qid, value, key.inner_text())
    else:
        radio.check()


def single_choice(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    qid = question["id"]
    values = annotator.page.locator(f"#q-{qid} input[type=radio]").evaluate_all("inputs => inputs.map(i => i.value)")
    assert len(values) >= 2, (qid, values)
    chosen = _pick(values, question, payload, annotator.who, seed)
    _choose(annotator, question, chosen)
    return chosen


def multiple_choice(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    page, qid = annotator.page, question["id"]
    values = page.locator(f"#q-{qid} input[type=checkbox]").evaluate_all("inputs => inputs.map(i => i.value)")
    low, high = max(question.get("min_choices", 1), 1), question.get("max_choices", len(values))
    count = min(high, low + (seed + annotator.who) % 2)
    chosen = {values[(seed + i + annotator.who * (seed % 2)) % len(values)] for i in range(count)}
    for value in chosen:
        page.locator(f"#q-{qid} input[type=checkbox][value='{value}']").check()
    return [v for v in values if v in chosen]


def likert(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    rating = 1 + (seed + annotator.who * (seed % 2)) % int(question["size"])
    _choose(annotator, question, str(rating))
    return rating


def slider(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    """A click on the slider's track, somewhere along it; the value it then shows."""
    box = annotator.page.locator(f"#q-{question['id']} input[type=range]")
    width = box.bounding_box()["width"]
    share = ((seed * 37 + annotator.who * 11) % 90 + 5) / 100
    box.click(position={"x": width * share, "y": box.bounding_box()["height"] / 2})
    value = float(box.input_value())
    shown = annotator.page.inner_text(f"#q-{question['id']} output")
    assert float(shown) == value, (shown, value)
    return int(value) if value.is_integer() else value


def number(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    value = question.get("min", 0) + (seed + annotator.who * (seed % 2)) % 3
    annotator.page.fill(f"#q-{question['id']} input", str(value))
    return value


def text(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    words = f"Annotator {annotator.who} says item {seed} reads well enough"
    while len(words) < (question.get("min_length") or 0):
        words += " and more"
    words = words[: question.get("max_length") or (200 if question["type"] == "short_text" else 5000)]
    annotator.page.fill(f"[name={question['id']}]", words)
    return words


def _words_to_mark(text: str, who: int, seed: int) -> list[tuple[int, int]]:
    """Runs of capitalised words (names, mostly): the first two for everyone, a third for
    annotator 1 on odd items."""
    runs = [m.span() for m in re.finditer(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*", text)]
    return runs[: 2 + (who * (seed % 2))]


def spans(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    """Each span dragged over with the mouse, then its label's button (or its key, annotator 1)."""
    page, qid = annotator.page, question["id"]
    source = str(payload[question["source"]])
    labels = page.locator(f"[data-for={qid}][data-span-label]")
    marked = []
    for index, (start, end) in enumerate(_words_to_mark(source, annotator.who, seed)):
        assert TaskFilePage(page).mark_span(qid, start, end) == source[start:end]
        label = None
        if labels.count():
            button = labels.nth((index + seed + annotator.who * (seed % 2)) % labels.count())
            button.wait_for(state="visible")
            page.wait_for_function("b => !b.disabled", arg=button.element_handle())
            label = button.get_attribute("data-span-label")
            key = button.locator("kbd")
            if annotator.who == 1 and key.count():
                page.keyboard.press(key.inner_text())
            else:
                button.click()
        marked.append({"start": start, "end": end, "text": source[start:end], "label": label})
    stored = json.loads(page.input_value(f"input[name={qid}]") or "[]")
    assert [(s["start"], s["end"], s["label"]) for s in stored] == [(m["start"], m["end"], m["label"]) for m in marked]
    assert page.locator(f"[data-span-list={qid}] li").count() == len(marked)
    return marked


def sentences(annotator: FileAnnotator, question: dict[str, Any], payload: dict[str, Any], seed: int) -> Any:
    """Sentences tapped by their number in the numbered text."""
    page, qid = annotator.page, question["id"]
    boxes = page.locator(f"[data-sentences={qid}] label.sentence")
    total = boxes.count()
    assert total >= 1, qid
    low, high = max(question.get("min_choices", 1), 1), question.get("max_choices", total)
    count = min(high, total, low + (seed + annotator.who) % 2)
    chosen = sorted({(seed + annotator.who * (seed % 2) + i) % total + 1 for i in range(count)})
    for n in chosen:
        boxes.nth(n - 1).locator(".n").click()
        assert boxes.nth(n - 1).locator("input").is_checked()
    return chosen


FILL = {
    "single_choice": single_choice,
    "multiple_choice": multiple_choice,
    "likert": likert,
    "slider": slider,
    "number": number,
    "short_text": text,
    "long_text": text,
    "spans": spans,
    "sentences": sentences,
}
