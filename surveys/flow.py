"""The page-flow engine: which page an annotator sees next and what it may show.

It knows nothing of any kind's rules; the kind says the pages and what each reveals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core import signing

from annotation.kinds import Page, PageForm, TaskKind
from annotation.kinds.suggestions import Suggestion
from annotation.models import Response
from annotation.services.responses import next_page_slug

SHOWN_SALT = "surveys.page-shown"
#: how long a rendered page's note of its time stays good (a page left open over a weekend)
SHOWN_MAX_AGE = 7 * 24 * 3600


@dataclass(frozen=True)
class Step:
    kind: TaskKind
    response: Response
    page: Page
    index: int
    count: int


def step_for(response: Response, kind: TaskKind) -> Step | None:
    """The item's next page to answer; None when the item is complete."""
    payload, answers = response.item.payload, response.answers
    slug = next_page_slug(kind, payload, answers)
    if slug is None:
        return None
    pages = list(kind.pages(payload, answers))
    index = [p.slug for p in pages].index(slug)
    return Step(kind=kind, response=response, page=pages[index], index=index + 1, count=len(pages))


def build_form(page: Page, response: Response, data: Any = None, initial: Any = None) -> PageForm:
    return page.form_class(data, payload=response.item.payload, answers=response.answers, initial=initial)


def suggestion_mode(response: Response) -> str:
    """How the response's batch shows its model's labels: "off", "hint" or "preselect" (read with
    the response by `selectors.work.with_suggestion`; "off" for a response read without it)."""
    return getattr(response, "suggestion_mode", None) or "off"


def suggestions_for(kind: TaskKind, page: Page, form: PageForm, response: Response) -> list[Suggestion]:
    """The model's labels of the response's own item that `page` shows (none when its batch
    shows none): the page draws them, and its save records whether each was kept."""
    labels = getattr(response, "suggestion_labels", None)
    if suggestion_mode(response) == "off" or not labels:
        return []
    return kind.suggestions(page, form, labels)


def page_context(step: Step) -> dict[str, Any]:
    return step.kind.page_context(step.response.item.payload, step.page, step.response.answers)


def shown_token(response_id: int, page_slug: str) -> str:
    """A signed note of when the page was rendered, so time per page needs no write on GET."""
    return signing.dumps([response_id, page_slug, time.time()], salt=SHOWN_SALT)


def shown_at(token: str, response_id: int, page_slug: str) -> datetime | None:
    """When the page that posted `token` was rendered; None for a token of another response or
    page, a forged or altered one, or one older than SHOWN_MAX_AGE (the time is then unknown)."""
    return read_shown(token, response_id, page_slug)[0]


def read_shown(token: str, response_id: int, page_slug: str) -> tuple[datetime | None, str]:
    """(`shown_at`, why it is None): "" with a time; else "missing", "malformed", "expired" or
    "another page's" (of another response or page), the reason a save stored as time unknown keeps."""
    if not token:
        return None, "missing"
    try:
        rendered_for, slug, stamp = signing.loads(token, salt=SHOWN_SALT, max_age=SHOWN_MAX_AGE)
    except signing.SignatureExpired:
        return None, "expired"
    except (signing.BadSignature, ValueError, TypeError):
        return None, "malformed"
    if not isinstance(stamp, (int, float)):
        return None, "malformed"
    if rendered_for != response_id or slug != page_slug:
        return None, "another page's"
    return datetime.fromtimestamp(stamp, tz=UTC), ""


def wait_seconds(page: Page, shown_at: datetime | None) -> float:
    """How long the page's minimum time still holds its save back, from when it was shown (the
    whole minimum when that is unknown); 0: it may be saved."""
    if not page.min_seconds:
        return 0.0
    if shown_at is None:
        return page.min_seconds
    return max(0.0, page.min_seconds - (datetime.now(tz=UTC) - shown_at).total_seconds())
