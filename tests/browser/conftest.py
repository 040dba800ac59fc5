"""Real-browser fixtures: Playwright's sync API driving Debian's Chromium (no browser download).

Chromium is looked for at $CHROMIUM_PATH (default /usr/bin/chromium). When it (or the
playwright package) is missing the browser tests skip with the reason, unless
REQUIRE_BROWSER=1 (CI), where a missing browser fails the run instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# Headless, and nothing that reaches out to the network (this machine has none).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMEOUT_MS = 20_000


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (install it: apt-get install chromium, or set CHROMIUM_PATH)"
    return None


@pytest.fixture(scope="session")
def browser():
    missing = _missing_browser()
    if missing:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {missing}", pytrace=False)
        pytest.skip(f"browser tests skipped: {missing}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx.set_default_timeout(TIMEOUT_MS)
    ctx.set_default_navigation_timeout(TIMEOUT_MS)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    return context.new_page()


@pytest.fixture
def make_invite(transactional_db, recam_dev_bytes):
    """An invite link to a fresh ReCAM batch built with the services, from the dev sample."""
    from annotation.models import Item
    from annotation.services.batches import batch_create, invite_link_create
    from annotation.services.imports import items_import
    from tests.factories import ProjectFactory

    def make(*, items: int = 2, items_per_unit: int = 2, assignments_per_unit: int = 1):
        project = ProjectFactory(kind="recam", name="Browser ReCAM")
        items_import(project=project, data=recam_dev_bytes, filename="Task_1_dev.sample.jsonl")
        chosen = list(Item.objects.filter(project=project).order_by("id")[:items])
        batch = batch_create(
            project=project,
            name="browser",
            items=chosen,
            items_per_unit=items_per_unit,
            assignments_per_unit=assignments_per_unit,
        )
        return invite_link_create(batch=batch, label="browser test")

    return make


@pytest.fixture
def mturk(settings):
    """The local MTurk-compatible endpoint for this test, with the channel pointed at it."""
    from annotation.mturk.local import LocalMTurkServer

    with LocalMTurkServer(balance="100.00") as server:
        settings.MTURK_ENDPOINT = "local"
        settings.MTURK_LOCAL_URL = server.url
        settings.MTURK_MAX_ATTEMPTS = 4
        yield server


@pytest.fixture
def prolific(settings):
    """The local Prolific-compatible endpoint for this test, with the channel pointed at it."""
    from annotation.prolific.local import LocalProlificServer

    with LocalProlificServer(balance=1_000_000) as server:
        settings.PROLIFIC_API_URL = server.url
        settings.PROLIFIC_API_TOKEN = server.token
        settings.PROLIFIC_COMPLETION_URL = server.completion_url
        yield server
