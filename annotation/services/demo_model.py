"""The demo's "Run the model" step: a connection of the demo team to the local OpenAI-compatible
endpoint that ``scripts/demo`` starts (``LLM_LOCAL_URL``), and a run estimated on each project given,
so the researcher sees the cost and starts the run from the admin (Model runs › “Run”)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from annotation.models import ModelConnection, ModelRun, Project, Team

from .model_runs import model_run_estimate

DEMO_MODEL = "local-model"
#: prices per million tokens shown in the demo's estimates (a small hosted model's order of
#: magnitude); the local endpoint charges nothing
DEMO_INPUT_PRICE, DEMO_OUTPUT_PRICE = Decimal("0.15"), Decimal("0.60")
#: the local endpoint keeps no provider's pace: ReCAM's 29 items in a second or two, not 29
DEMO_PACE = 6000


def demo_model_ensure(*, team: Team, base_url: str, projects: Sequence[Project], by: Any = None) -> ModelConnection:
    """The demo team's connection (its URL updated to `base_url`) and, for each project with no
    run of it yet, a run in status `estimated`. Running it twice adds nothing."""
    connection, _ = ModelConnection.objects.update_or_create(
        team=team,
        name=DEMO_MODEL,
        defaults={
            "base_url": base_url,
            "model": DEMO_MODEL,
            "input_price": DEMO_INPUT_PRICE,
            "output_price": DEMO_OUTPUT_PRICE,
            "requests_per_minute": DEMO_PACE,
        },
    )
    for project in projects:
        if not ModelRun.objects.filter(project=project, connection=connection).exists():
            model_run_estimate(project=project, connection=connection, by=by)
    return connection
