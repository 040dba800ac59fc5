"""What every annotator page shares: the template engine and the instructions shown."""

from __future__ import annotations

from annotation.kinds import kind_of
from annotation.models import Project

#: the template engine of templates/jinja2/surveys/** (Jinja2, config/jinja2.py)
ENGINE = "jinja2"


def instructions_of(project: Project) -> str:
    return project.instructions or str(kind_of(project).default_instructions)
