import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are ordinary synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def data_file(*parts: str) -> Path:
    """A sample file: the project's own copy under tests/fixtures, else ../shared/data."""
    own = FIXTURES.joinpath(*parts)
    return own if own.exists() else SHARED_DATA.joinpath(*parts)


@pytest.fixture
def recam_dev_bytes() -> bytes:
    return data_file("recam", "Task_1_dev.sample.jsonl").read_bytes()


@pytest.fixture
def recam_test_bytes() -> bytes:
    return data_file("recam", "Task_1_test.sample.jsonl").read_bytes()
