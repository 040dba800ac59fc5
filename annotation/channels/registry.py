from __future__ import annotations

from typing import TypeVar

from .base import Channel

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
