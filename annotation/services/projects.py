"""Creating projects: the one place that checks a project's task kind exists."""
from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotation.kinds import get_kind
from annotation.models import Project


def project_create(
    *,
    name: str,
    kind: str,
    language: str = "en",
    instructions: str = "",
    settings: dict[str, Any] | None = None,
    created_by: AbstractBaseUser | None = None,
) -> Project:
    """Create a project of a registered kind.

    Preconditions: `kind` is registered (UnknownKind names the known kinds otherwise), so a
    project can never point at a kind the import, pages and quality rules cannot find.
    """
    get_kind(kind)
    return Project.objects.create(
        name=name,
        kind=kind,
        language=language,
        instructions=instructions,
        settings=settings or {},
        created_by=created_by,
    )
