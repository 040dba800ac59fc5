"""Invite links: the embedded default for directly recruited annotators and experts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Channel, PublishResult, UnitCallback
from .registry import register

if TYPE_CHECKING:
    from annotation.models import Assignment, Batch


@register
class InviteChannel(Channel):
    slug = "invite"
    title = "Invite link"

    def publish(self, batch: "Batch", *, base_url: str, on_unit: UnitCallback | None = None) -> PublishResult:
        from annotation.models import InviteLink
        from annotation.selectors import invite_url

        link = batch.invites.filter(active=True).first() or InviteLink.objects.create(batch=batch, label="default")
        return PublishResult(
            published=batch.units.count(), failed={}, links=[invite_url(link.token, base_url=base_url)]
        )

    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        # The annotator's secret key is the only way in, and every page was saved server-side.
        complete = not assignment.responses.filter(completed_at__isnull=True).exists()
        return (True, "") if complete else (False, "not every item was completed")
