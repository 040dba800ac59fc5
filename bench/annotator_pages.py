"""What a virtual annotator reads from the ReCAM pages and posts back, as a browser does: the
hidden fields of the page's form, a valid answer to each page, and its cookies. Shared by
bench_annotate.py (speed) and soak.py (correctness under faults).
"""

from __future__ import annotations

import html
import random
import re
from typing import Any

FIELD = {
    name: re.compile(rf'name="{name}" value="([^"]*)"') for name in ("response", "page", "shown", "csrfmiddlewaretoken")
}
#: every hidden field of the page's form, posted back as a browser posts them
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
PASSAGE = re.compile(r'<div class="passage-text" data-span-source="1">(.*?)</div>', re.S)
CHOICE = re.compile(r'<input type="radio" name="choice" value="([^"]+)"')
#: a refused save, shown as a message on the page that answers it (or a form error)
ERROR_MSG = re.compile(r'class="msg error"')
SWAP = {"X-Page-Swap": "1"}  # sent by static/surveys/annotate.js
RELATIONS = ("summarize", "paraphrase", "other")
DIFFICULTIES = ("easy", "medium", "difficult")


def hidden_fields(page: str) -> dict[str, str]:
    """The hidden fields of a page's form, unescaped, as a browser posts them."""
    return {name: html.unescape(value) for name, value in HIDDEN.findall(page)}


def answer(page_slug: str, page: str, rng: random.Random | None = None) -> dict[str, str]:
    """A valid answer to the page (a choice, "No Other Answer", a span of the passage...): always
    the same one without `rng`, one drawn from `rng` with it (so two sends of one page can differ)."""
    if page_slug in ("pre", "post"):
        choices = CHOICE.findall(page) or ["0"]
        return {"choice": rng.choice(choices) if rng else choices[hash(page_slug) % len(choices)]}
    if page_slug == "second":  # another word could equal the "post" answer: the form refuses that
        return {"choice": rng.choice(CHOICE.findall(page) or ["none"]) if rng and rng.random() < 0.2 else "none"}
    if page_slug in ("support_span", "summary_span"):
        words = html.unescape(PASSAGE.search(page).group(1)).split()
        start = rng.randrange(0, 20) if rng else 3 if page_slug == "support_span" else 8
        return {"text": " ".join(words[start : start + 8])}
    if page_slug == "relation":
        return {"relation": rng.choice(RELATIONS) if rng else "paraphrase"}
    if page_slug == "difficulty":
        return {"difficulty": rng.choice(DIFFICULTIES) if rng else "easy"}
    raise ValueError(f"unknown page {page_slug!r}")


def cookie_header(jar: dict[str, str]) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if jar else {}


def store_cookies(jar: dict[str, str], set_cookie_values: list[str]) -> None:
    """Keep the cookies a reply set (a deleted one is kept empty, which the app reads as none)."""
    for value in set_cookie_values:
        name, _, rest = value.partition("=")
        jar[name.strip()] = rest.split(";", 1)[0]


def recam_study(items: int, items_per_unit: int, annotators_per_item: int, *, name: str = "Bench ReCAM") -> Any:
    """A ReCAM project with `items` items in one open batch: (project, batch, invite link)."""
    import common

    from annotation.models import Project
    from annotation.services.batches import batch_create, invite_link_create
    from annotation.services.imports import items_import

    project = Project.objects.create(name=name, kind="recam", team=common.bench_team())
    items_import(project=project, data=common.recam_jsonl(items, tag="a"), filename="bench.jsonl")
    batch = batch_create(
        project=project, name="bench", items_per_unit=items_per_unit, assignments_per_unit=annotators_per_item
    )
    return project, batch, invite_link_create(batch=batch)
