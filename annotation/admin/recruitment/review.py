"""The review operations of the batch admin's review action, each one service call."""

from __future__ import annotations

from typing import Any

from annotation.models import Batch
from annotation.services.bonuses import bonus_pay
from annotation.services.review import (
    ReviewError,
    decisions_apply,
    participants_block,
    participants_message,
    qualification_grant,
    reject_unverified,
)


def review_apply(batch: Batch, decisions: Any, data: dict[str, Any]) -> str:
    """Run the chosen operation (the review form's cleaned data: the fields its channels offer)
    on the batch; what it did, in words."""
    op, who, category = data["operation"], data.get("who", "all"), data.get("rejection_category", "")
    if op == "reject_unverified":
        return reject_unverified(batch=batch, feedback=data["reject_feedback"], category=category).summary() + "."
    if decisions is None and (op == "review" or who != "all"):
        raise ReviewError("there are no quality decisions for this batch's project: run the quality rules first")
    if op == "review":
        return (
            decisions_apply(
                batch=batch,
                decisions=decisions,
                reject_feedback=data["reject_feedback"],
                approve_feedback=data.get("approve_feedback", ""),
                reject_category=category,
            ).summary()
            + "."
        )
    if op == "bonus":
        return (
            bonus_pay(
                batch=batch,
                amount=str(data["amount"]),
                reason=data["text"],
                who=who,
                decisions=decisions,
                label=data["label"],
            ).summary()
            + "."
        )
    if op == "message":
        result = participants_message(
            batch=batch, subject=data["subject"], text=data["text"], who=who, decisions=decisions
        )
        return f"sent in {result.calls} call(s); {len(result.failed)} worker(s) not reached."
    if op == "block":
        blocked, failed = participants_block(batch=batch, reason=data["text"], who=who, decisions=decisions)
        return f"{blocked} worker(s) blocked" + (f"; failed: {failed}" if failed else ".")
    type_id, count = qualification_grant(batch=batch, who=who, decisions=decisions)
    return f"qualification {type_id} granted to {count} worker(s)."
