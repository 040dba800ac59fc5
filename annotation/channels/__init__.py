"""Recruiting channels, imported explicitly so each registers itself."""

from . import invite, mturk, prolific  # noqa: F401
from .base import (
    AnnotatorOrigin,
    Channel,
    ChannelError,
    ChannelNotSupported,
    ChannelOutcomeUnknown,
    ChannelSettingsError,
    ChannelUnavailable,
    EntryCheck,
    MessageResult,
    PublishResult,
    SubmissionInfo,
    UnitCost,
    UnitState,
    money,
    request_token,
)
from .mturk_settings import HitSettings, HitSettingsError, hit_settings_for, hit_settings_parse
from .registry import UnknownChannel, annotator_origins, channel_choices, get_channel

__all__ = [
    "AnnotatorOrigin",
    "annotator_origins",
    "Channel",
    "ChannelError",
    "ChannelNotSupported",
    "ChannelOutcomeUnknown",
    "ChannelSettingsError",
    "ChannelUnavailable",
    "EntryCheck",
    "HitSettings",
    "HitSettingsError",
    "MessageResult",
    "PublishResult",
    "SubmissionInfo",
    "UnitCost",
    "UnitState",
    "UnknownChannel",
    "channel_choices",
    "get_channel",
    "hit_settings_for",
    "money",
    "hit_settings_parse",
    "request_token",
]
