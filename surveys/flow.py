"""The page-flow engine: which page an annotator sees next and what it may show.

It knows nothing of any kind's rules; the kind says the pages and what each reveals.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timezone as dt_timezone
from typing import Any

import orjson
from django.conf import settings
from django.utils.crypto import constant_time_compare
from django.utils.encoding import force_bytes

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
    return page_form(page, response.item.payload, response.answers, data)


def page_form(page: Page, payload: dict[str, Any], answers: dict[str, Any], data: Any = None) -> PageForm:
    return page.form_class(data, payload=payload, answers=answers)


@dataclass(frozen=True)
class PageState:
    """What a page was rendered from, as the page posts it back: its response, item, kind and
    the answers before it. A claim, not a proof: `response_save_next_page` writes only if the
    database still agrees with all of it, and the usual save takes any page whose claim fails."""

    response_id: int
    item_id: int
    kind: str
    answers: dict[str, Any]


def page_state_token(step: Step) -> str:
    """The page's `PageState` for a hidden field: compact JSON in URL-safe base64 (nothing in it
    needs escaping in the page, nor unescaping by whoever reads the page)."""
    response = step.response
    data = orjson.dumps(
        {"r": response.pk, "i": response.item_id, "k": step.kind.slug, "a": response.answers},
        option=orjson.OPT_SORT_KEYS,  # the same text whichever order the answers' keys came in
    )
    return base64.urlsafe_b64encode(data).decode("ascii")


def page_state(token: str, response_id: int | None) -> PageState | None:
    """The state a page posted for `response_id`; None when missing, malformed or another's."""
    if not token or response_id is None:
        return None
    try:
        data = orjson.loads(base64.urlsafe_b64decode(token))
        state = PageState(data["r"], data["i"], data["k"], data["a"])
    except (ValueError, KeyError, TypeError):  # binascii.Error and orjson.JSONDecodeError are ValueErrors
        return None
    valid = (type(state.response_id) is int and type(state.item_id) is int and isinstance(state.kind, str)
             and isinstance(state.answers, dict))
    return state if valid and state.response_id == response_id else None


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
    """`salted_hmac(SHOWN_SALT, ..., secret=secret, algorithm="sha256").hexdigest()`, with the
    key that salted_hmac derives (SHA-256 of salt and secret) derived once per secret."""
    return hmac.new(_shown_key(secret), f"{response_id}:{page_slug}:{stamp}".encode(), hashlib.sha256).hexdigest()


@lru_cache(maxsize=8)
def _shown_key(secret: str) -> bytes:
    return hashlib.sha256(force_bytes(SHOWN_SALT) + force_bytes(secret)).digest()
