"""Registered task kinds, by slug."""

from __future__ import annotations

from typing import TypeVar

from .base import TaskKind

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
