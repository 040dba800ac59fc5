"""The real Label Studio for the `label_studio`-marked tests: one server per test session
(`server.running`). When .venv-label-studio/ is missing (scripts/label_studio_env.sh makes it)
they skip with the reason, unless REQUIRE_LABEL_STUDIO=1 (CI), where they fail instead.
SKIP_LABEL_STUDIO=1 deselects them (CI runs them on one database only); LABEL_STUDIO_URL and
LABEL_STUDIO_TOKEN point them at a Label Studio already running instead."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .server import LabelStudio, missing, running


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SKIP_LABEL_STUDIO") != "1":
        return
    kept = [item for item in items if item.get_closest_marker("label_studio") is None]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudio]:
    if os.environ.get("LABEL_STUDIO_URL"):  # one already running (a developer's), with an admin's legacy token
        yield LabelStudio(os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_TOKEN"])
        return
    why = missing()
    if why:
        if os.environ.get("REQUIRE_LABEL_STUDIO") == "1":
            pytest.fail(f"REQUIRE_LABEL_STUDIO=1 but {why}", pytrace=False)
        pytest.skip(f"Label Studio tests skipped: {why}")
    with running(tmp_path_factory.mktemp("label-studio")) as server:
        yield server
