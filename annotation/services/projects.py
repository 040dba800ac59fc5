"""Creating projects: the one place that checks a project's task kind exists."""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth.models import User

from annotation.kinds import get_kind
from annotation.models import Item, Project, Team


def project_create(
    *,
    name: str,
    kind: str,
    team: Team,
    language: str = "en",
    instructions: str = "",
    settings: dict[str, Any] | None = None,
    created_by: User | None = None,
) -> Project:
    """Create a project of a registered kind.

    Preconditions: `kind` is registered (UnknownKind names the known kinds otherwise), so a
    project can never point at a kind the import, pages and quality rules cannot find; `team` is
    one the creator may use (`team_selectors.teams_of`: the admin and API offer only those), since
    only its members will see the project.
    """
    get_kind(kind)
    return Project.objects.create(
        name=name,
        kind=kind,
        team=team,
        language=language,
        instructions=instructions,
        settings=settings or {},
        created_by=created_by,
    )


def consistency_set_choose(*, project: Project, size: int = 20, seed: int | None = None) -> list[str]:
    """Pick `size` groups at random (one item of each, the first imported) as the project's
    consistency set, which every annotator rates for calibration (SimLex-999 used 20 pairs).

    Stored as external ids in `settings["consistency_items"]`; batches made afterwards put
    them in a unit everyone does first. Raises ValueError when the project has fewer groups.
    """
    firsts: dict[str, str] = {}
    for external_id, group_key in (
        Item.objects.filter(project=project).order_by("id").values_list("external_id", "group_key")
    ):
        firsts.setdefault(group_key or external_id, external_id)
    if size < 1 or size > len(firsts):
        raise ValueError(f"a consistency set of {size} needs between 1 and {len(firsts)} groups of items")
    chosen = random.Random(seed).sample(sorted(firsts), size)
    project.settings = {**(project.settings or {}), "consistency_items": [firsts[g] for g in chosen]}
    project.save(update_fields=["settings"])
    return project.settings["consistency_items"]
