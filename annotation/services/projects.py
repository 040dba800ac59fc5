"""Creating projects: the one place that checks a project's task kind exists."""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.kinds import checked_kind_slug, task_file_replacement_problem
from annotation.models import Item, Project, Response, Team


def project_create(
    *,
    name: str,
    kind: str = "",
    team: Team,
    task_file: str = "",
    language: str = "en",
    instructions: str = "",
    settings: dict[str, Any] | None = None,
    created_by: User | None = None,
) -> Project:
    """Create a project of a registered kind, or of the task `task_file` describes.

    Preconditions: `kind` is registered (UnknownKind names the known kinds otherwise), or
    `task_file` is a valid task file (TaskFileError names every problem otherwise), so a project
    can never point at a kind the import, pages and quality rules cannot find; `team` is
    one the creator may use (`selectors.teams.teams_of`: the admin and API offer only those), since
    only its members will see the project.
    """
    kind = checked_kind_slug(kind, task_file)
    return Project.objects.create(
        name=name,
        kind=kind,
        task_file=task_file,
        team=team,
        language=language,
        instructions=instructions,
        settings=settings or {},
        created_by=created_by,
    )


@transaction.atomic
def project_task_file_change(*, project: Project, text: str) -> Project:
    """Replace the task file of a project described by one.

    Raises TaskFileError for a file with mistakes, and ValueError (with the first difference)
    when the project has answers and the change touches more than words: a changed page,
    question, option value or rule would give the stored answers another meaning.
    Raises ValueError too for a project of a built-in kind.
    """
    project = Project.objects.select_for_update().get(pk=project.pk)
    answered = Response.objects.filter(item__project=project).exists()
    problem = task_file_replacement_problem(project, text, answered=answered)
    if problem is not None:
        raise ValueError(problem[:1].upper() + problem[1:] + ".")
    project.task_file = text
    project.save(update_fields=["task_file"])
    return project


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
