"""Invite links: the embedded default for directly recruited annotators and experts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import AnnotatorOrigin, Channel, PublishResult, UnitCallback
from .registry import register

if TYPE_CHECKING:
    from annotation.models import Annotator, Assignment, Batch


def link_id(annotator: "Annotator") -> int | None:
    """The invite link an annotator joined through (their id starts with the link's id)."""
    head = annotator.external_id.partition("-")[0]
    return int(head) if head.isdecimal() else None


@register
class InviteChannel(Channel):
    slug = "invite"
    title = "Invite link"

    def publish(self, batch: "Batch", *, base_url: str, on_unit: UnitCallback | None = None) -> PublishResult:
        from annotation.models import InviteLink
        from annotation.selectors.batches import invite_url

        link = batch.invites.filter(active=True).first() or InviteLink.objects.create(batch=batch, label="default")
        return PublishResult(
            published=batch.units.count(), failed={}, links=[invite_url(link.token, base_url=base_url)]
        )

    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        # The annotator's secret key is the only way in, and every page was saved server-side.
        complete = not assignment.responses.filter(completed_at__isnull=True).exists()
        return (True, "") if complete else (False, "not every item was completed")

    def annotator_origins(self, annotators: "list[Annotator]") -> dict[int, AnnotatorOrigin]:
        """The link's name (its label, else "link <id>"), ranked by the link, then by who joined first."""
        from annotation.models import InviteLink

        links = {a.pk: link_id(a) or 0 for a in annotators}
        labels = dict(InviteLink.objects.filter(pk__in=set(links.values())).values_list("pk", "label"))
        return {
            a.pk: AnnotatorOrigin(labels.get(links[a.pk]) or f"link {links[a.pk]}", (links[a.pk], a.pk))
            for a in annotators
        }
