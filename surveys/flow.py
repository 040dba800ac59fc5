"""The page-flow engine: which page an annotator sees next and what it may show.

It knows nothing of any kind's rules; the kind says the pages and what each reveals.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone as dt_timezone
from typing import Any

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

from annotation.kinds import Page, PageForm, TaskKind, get_kind
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


def step_for(response: Response, project_kind: str) -> Step | None:
    kind = get_kind(project_kind)
    payload = response.item.payload
    slug = next_page_slug(project_kind, payload, response.answers)
    if slug is None:
        return None
    pages = list(kind.pages(payload))
    index = [p.slug for p in pages].index(slug)
    return Step(kind=kind, response=response, page=pages[index], index=index + 1, count=len(pages))


def build_form(page: Page, response: Response, data: Any = None) -> PageForm:
    return page.form_class(data, payload=response.item.payload, answers=response.answers)


def page_context(step: Step) -> dict[str, Any]:
    return step.kind.page_context(step.response.item.payload, step.page, step.response.answers)


def shown_token(response_id: int, page_slug: str) -> str:
    """A signed note of when the page was rendered, so time per page needs no write on GET:
    `<unix time>:<HMAC-SHA256 of response, page and time>`, keyed with SECRET_KEY and a salt of
    its own. (django.core.signing made the same promise with JSON, base64 and a second timestamp:
    130,000 instructions a page against 25,000.)"""
    stamp = f"{time.time():.3f}"
    return f"{stamp}:{_shown_mac(response_id, page_slug, stamp, settings.SECRET_KEY)}"


def shown_at(token: str, response_id: int, page_slug: str) -> datetime | None:
    """When the page that posted `token` was rendered; None for a token of another response or
    page, a forged or altered one, or one older than SHOWN_MAX_AGE (the time is then unknown)."""
    stamp, _, mac = token.partition(":")
    if not any(constant_time_compare(mac, _shown_mac(response_id, page_slug, stamp, secret))
               for secret in [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]):
        return None
    try:
        shown = float(stamp)
    except ValueError:
        return None
    if not math.isfinite(shown) or time.time() - shown > SHOWN_MAX_AGE:
        return None
    return datetime.fromtimestamp(shown, tz=dt_timezone.utc)


def _shown_mac(response_id: int, page_slug: str, stamp: str, secret: str) -> str:
    return salted_hmac(SHOWN_SALT, f"{response_id}:{page_slug}:{stamp}", secret=secret, algorithm="sha256").hexdigest()
