"""What a channel's review can do and the rules of the texts it sends (`Channel.review_rules`):
the batch admin's review form shows only those, and the review services refuse before any call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the review operations a channel may offer (the batch admin's review form), in the form's order
REVIEW_OPERATIONS = ("review", "reject_unverified", "bonus", "message", "block", "grant")
#: the operations that reject work (they need the rejection text)
REJECTING = ("review", "reject_unverified")


@dataclass(frozen=True)
class ReviewRules:
    """What a channel's review can do (`operations`, of REVIEW_OPERATIONS) and the rules of the
    texts it sends, so a form shows only what the channel does and a review is refused before
    any call rather than half done at the channel. Lengths in characters; None: no limit."""

    operations: tuple[str, ...] = ()
    reject_feedback_min: int = 1
    reject_feedback_max: int | None = None
    #: whether approving passes a text on to the worker (and how long it may be)
    approve_feedback: bool = False
    approve_feedback_max: int | None = None
    #: the channel's reasons for a rejection, one of which goes with it (empty: none asked)
    rejection_categories: tuple[str, ...] = ()
    message_subject_max: int | None = None
    message_text_max: int | None = None

    def problems(self, operation: str, data: Mapping[str, Any], *, channel: str) -> dict[str, str]:
        """Why `data` (the review form's fields) cannot go to the channel named `channel` for
        `operation`, by field; empty: it can."""
        if operation not in self.operations:
            return {"operation": f"{channel} does not offer this"}
        found: dict[str, str] = {}
        if operation in REJECTING:
            if not (data.get("reject_feedback") or "").strip():
                found["reject_feedback"] = "rejecting needs feedback: the worker is told why"
            _length(found, "reject_feedback", data, self.reject_feedback_min, self.reject_feedback_max, channel)
            category = data.get("rejection_category") or ""
            if category and category not in self.rejection_categories:
                found["rejection_category"] = f"{channel} has no rejection category {category!r}"
        if operation == "review" and (data.get("approve_feedback") or "").strip():
            if not self.approve_feedback:
                found["approve_feedback"] = f"{channel} passes no text on with an approval: leave it empty"
            else:
                _length(found, "approve_feedback", data, 0, self.approve_feedback_max, channel)
        if operation == "message":
            _length(found, "subject", data, 1, self.message_subject_max, channel)
            _length(found, "text", data, 1, self.message_text_max, channel)
        return found


def _length(
    found: dict[str, str], name: str, data: Mapping[str, Any], low: int, high: int | None, channel: str
) -> None:
    text = (data.get(name) or "").strip()
    if name in found:
        return
    if len(text) < low:
        found[name] = (
            f"needed: {channel} takes at least {low} characters (this has {len(text)})" if low > 1 else "needed"
        )
    elif high is not None and len(text) > high:
        found[name] = f"{channel} takes at most {high} characters (this has {len(text)})"
