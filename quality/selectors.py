from __future__ import annotations

from annotation.models import Project
from quality.models import QualityRun


def latest_run(project: Project) -> QualityRun | None:
    """The newest finished quality run: the one exports and reviews use."""
    return (
        QualityRun.objects.filter(project=project, status=QualityRun.Status.DONE)
        .order_by("-created_at", "-id")
        .first()
    )
