from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from .base import AnnotatorOrigin, Channel

if TYPE_CHECKING:
    from annotation.models import Annotator

_CHANNELS: dict[str, Channel] = {}
C = TypeVar("C", bound=type[Channel])


class UnknownChannel(LookupError):
    pass


def register(cls: C) -> C:
    _CHANNELS[cls.slug] = cls()
    return cls


def get_channel(slug: str) -> Channel:
    try:
        return _CHANNELS[slug]
    except KeyError:
        known = ", ".join(sorted(_CHANNELS)) or "none"
        raise UnknownChannel(f"unknown channel {slug!r}; known channels: {known}") from None


def channel_choices() -> list[tuple[str, str]]:
    return [(c.slug, c.title) for c in _CHANNELS.values()]


def annotator_origins(annotators: "Iterable[Annotator]") -> dict[int, AnnotatorOrigin]:
    """Each annotator's origin by id, asked of their channel (an unknown channel, e.g. a named
    login's: its slug, ranked by who joined first)."""
    by_channel: dict[str, list[Annotator]] = {}
    for annotator in annotators:
        by_channel.setdefault(annotator.channel, []).append(annotator)
    found: dict[int, AnnotatorOrigin] = {}
    for slug, group in by_channel.items():
        channel = _CHANNELS.get(slug)
        if channel is None:
            found.update({a.pk: AnnotatorOrigin(slug, (0, a.pk)) for a in group})
        else:
            found.update(channel.annotator_origins(group))
    return found
