import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are ordinary synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def data_file(*parts: str) -> Path:
    """A sample file of the project's own (tests/fixtures/<dataset>/, copied with its README):
    the tests read nothing outside the project."""
    path = FIXTURES.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"{path} is not in the project's fixtures (copy it there with its README)")
    return path


@pytest.fixture
def recam_dev_bytes() -> bytes:
    return data_file("recam", "Task_1_dev.sample.jsonl").read_bytes()


@pytest.fixture
def recam_test_bytes() -> bytes:
    return data_file("recam", "Task_1_test.sample.jsonl").read_bytes()


@pytest.fixture(autouse=True)
def _no_language_left_active():
    """A view activates its project's language for the rest of the thread (in a server, the next
    request's LocaleMiddleware sets its own); in one test process the next test would inherit it."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture
def local_model():
    """The local OpenAI-compatible endpoint on a free port (annotation.llm.local)."""
    from annotation.llm.local import LocalModelServer

    with LocalModelServer() as server:
        yield server
