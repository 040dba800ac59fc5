"""The batch's calls to its recruiting site (the call log), read-only."""

from __future__ import annotations

from rest_framework import serializers

from annotation.models import ChannelCall


class ChannelCallSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChannelCall
        fields = ["id", "created_at", "channel", "operation", "request", "status", "outcome", "error", "duration_ms"]
        read_only_fields = fields
