"""Recruiting channels, imported explicitly so each registers itself."""
from . import invite  # noqa: F401
from .base import Channel, ChannelNotSupported, PublishResult
from .registry import UnknownChannel, channel_choices, get_channel

__all__ = ["Channel", "ChannelNotSupported", "PublishResult", "UnknownChannel", "channel_choices", "get_channel"]
