"""Journeys: a researcher's whole study through the platform, in real browsers (see researcher.py
and annotators.py). Each person has a browser context of their own, as on their own machine."""

from __future__ import annotations

import pytest

from tests.browser.conftest import TIMEOUT_MS

from .researcher import Researcher

DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}


#: every answer of 400 or more that a person's browser got, this test (see `no_failed_requests`)
FAILED: list[str] = []


@pytest.fixture
def person(browser):  # noqa: F811
    """A new browser context (a person on their own machine); closed at the end of the test."""
    contexts = []

    def make(*, phone: bool = False, locale: str = "en-US"):
        options = {"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone else {"viewport": DESKTOP}
        context = browser.new_context(locale=locale, **options)
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        contexts.append(context)
        tab = context.new_page()
        tab.on("response", lambda r: r.status >= 400 and FAILED.append(f"{r.status} {r.request.method} {r.url}"))
        return tab

    FAILED.clear()
    yield make
    for each in contexts:
        each.close()


@pytest.fixture
def researcher(person, live_server) -> Researcher:
    lead = Researcher(person(), live_server)
    lead.log_in()
    return lead


@pytest.fixture
def no_failed_requests():
    """Call at the end of a journey: no page, script, style, icon or download answered an error."""

    def check(*, allowed: tuple[str, ...] = ()) -> None:
        failed = [line for line in FAILED if not any(part in line for part in allowed)]
        assert not failed, failed

    return check
