"""Registered task kinds, by slug."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from .base import TaskKind
from .results import GENERIC_SETTINGS
from .taskfile import QUALITY_DEFAULTS, TASK_FILE_KIND, task_file_kind, task_file_words_change


class ProjectLike(Protocol):
    """What `kind_of` reads of a project (the kinds never import the models)."""

    kind: str
    task_file: str


_KINDS: dict[str, TaskKind] = {}
K = TypeVar("K", bound=type[TaskKind])


class UnknownKind(LookupError):
    pass


def register(cls: K) -> K:
    if cls.slug in _KINDS:
        raise ValueError(f"task kind {cls.slug!r} is registered twice")
    _KINDS[cls.slug] = cls()
    return cls


def get_kind(slug: str) -> TaskKind:
    try:
        return _KINDS[slug]
    except KeyError:
        known = ", ".join(sorted(_KINDS)) or "none"
        raise UnknownKind(f"unknown task kind {slug!r}; known kinds: {known}") from None


def all_kinds() -> list[TaskKind]:
    return list(_KINDS.values())


def kind_choices() -> list[tuple[str, str]]:
    return [(k.slug, k.title) for k in _KINDS.values()]


def kind_of(project: ProjectLike) -> TaskKind:
    """A project's kind object: a registered kind by its slug, or the one its task file describes
    (built once per file text). Every caller goes through here, so none asks which it is."""
    if project.kind == TASK_FILE_KIND:
        return task_file_kind(project.task_file)
    return get_kind(project.kind)


def checked_kind_slug(kind: str, task_file: str) -> str:
    """The `Project.kind` of a new project: the file kind's when a task file is given (checked:
    TaskFileError names its problems), else `kind`, which must be registered (UnknownKind)."""
    if task_file:
        task_file_kind(task_file)
        return TASK_FILE_KIND
    get_kind(kind)
    return kind


def task_file_replacement_problem(project: ProjectLike, text: str, *, answered: bool) -> str | None:
    """Why `project` may not take `text` as its task file (None: it may). `text` is checked
    first (TaskFileError). A project of a registered kind has no file to replace; one with
    answers (`answered`) may change only the file's words: a changed page, question, option
    value or rule would give the stored answers another meaning."""
    task_file_kind(text)
    if project.kind != TASK_FILE_KIND:
        return "only a project made from a task file has a task file to change"
    if answered:
        difference = task_file_words_change(project.task_file, text)
        if difference is not None:
            return (
                "the project has annotations, so its task file may change only in its words "
                f"(titles, prompts, help, option labels, instructions, translations): {difference}"
            )
    return None


def known_settings() -> dict[str, Any]:
    """Every setting some kind has (a registered one, or any described by a task file), with a
    default that shows its type: what an API may accept before it knows the project's kind."""
    settings: dict[str, Any] = {**GENERIC_SETTINGS, **QUALITY_DEFAULTS}
    for kind in _KINDS.values():
        settings.update(kind.settings_for(None))
    return settings
