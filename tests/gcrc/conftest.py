import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gcrc"
SAMPLES = ("test_public.sample.json", "dev_GCRCadvrobust.sample.json")


def sample_text(name: str) -> str:
    """A sample file as released (UTF-8, CRLF kept)."""
    return (FIXTURES / name).read_bytes().decode("utf-8")


def sample_items(name: str) -> list[dict]:
    return json.loads(sample_text(name))["data"]


@pytest.fixture(params=SAMPLES)
def sample_name(request) -> str:
    return request.param
