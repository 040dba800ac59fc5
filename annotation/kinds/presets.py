"""Channel presets: a kind's named recruiting setup for one channel (e.g. the paper's MTurk
qualifications), which a researcher may pick when making a batch. The kind owns its presets
(`TaskKind.channel_presets`), so nothing outside the kind's module names the kind."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import TaskKind


class PresetError(LookupError):
    """No such preset; the message names the presets the kind has."""


@dataclass(frozen=True)
class ChannelPreset:
    """`channel_settings`: keys of `Batch.channel_settings` the preset sets; `items_per_unit`:
    the units' size it sets (None: left to the researcher); `description` says which values
    come from the paper and which are our editable defaults."""

    name: str
    description: str
    channel_settings: Mapping[str, Any] = field(default_factory=dict)
    items_per_unit: int | None = None


def preset_for_channel(kind: "TaskKind", channel: str) -> ChannelPreset:
    """The kind's preset for `channel`; PresetError when it has none."""
    presets = kind.channel_presets()
    if channel not in presets:
        raise PresetError(f"{kind.title} has no preset for the {channel!r} channel; {_known(presets)}")
    return presets[channel]


def preset_named(kind: "TaskKind", name: str) -> tuple[str, ChannelPreset]:
    """(channel slug, preset) of the kind's preset called `name`; PresetError when unknown."""
    presets = kind.channel_presets()
    for channel, preset in presets.items():
        if preset.name == name:
            return channel, preset
    raise PresetError(f"{kind.title} has no preset {name!r}; {_known(presets)}")


def preset_fill(
    preset: ChannelPreset, *, channel_settings: Mapping[str, Any] | None, items_per_unit: int | None
) -> tuple[dict[str, Any], int | None]:
    """The preset's values under what the researcher typed: typed keys and a typed
    items_per_unit win, the preset fills the rest."""
    settings = {**preset.channel_settings, **(channel_settings or {})}
    return settings, items_per_unit if items_per_unit is not None else preset.items_per_unit


def _known(presets: Mapping[str, ChannelPreset]) -> str:
    if not presets:
        return "it has no presets"
    return "known: " + ", ".join(f"{p.name} ({channel})" for channel, p in presets.items())
