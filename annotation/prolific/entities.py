"""What the Prolific client returns: frozen dataclasses built from the API's JSON.

Money is in minor units (pence/cents) as Prolific sends it; times stay ISO 8601 strings as
sent. Field names follow the API; list and detail shapes of a submission differ
(``participant_id``/``study_code`` vs ``participant``/``entered_code``) and both are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .drafts import ENDING_ACTIONS


def _minor(value: Any) -> Decimal:
    return Decimal(str(value or 0))


@dataclass(frozen=True)
class Me:
    id: str
    email: str
    currency_code: str
    available_balance: int | None

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Me":
        return cls(
            id=d["id"],
            email=d.get("email") or "",
            currency_code=d.get("currency_code") or "",
            available_balance=d.get("available_balance"),
        )


@dataclass(frozen=True)
class Workspace:
    id: str
    title: str

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Workspace":
        return cls(id=d["id"], title=d.get("title") or d.get("name") or "")


@dataclass(frozen=True)
class Balance:
    currency_code: str
    total_balance: int
    available_balance: int
    breakdown: dict[str, int]

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Balance":
        return cls(
            currency_code=d.get("currency_code") or "",
            total_balance=int(d.get("total_balance") or 0),
            available_balance=int(d.get("available_balance") or 0),
            breakdown=dict(d.get("balance_breakdown") or {}),
        )


@dataclass(frozen=True)
class Study:
    id: str
    name: str
    internal_name: str
    status: str  # UNPUBLISHED, SCHEDULED, PUBLISHING, ACTIVE, AWAITING REVIEW, PAUSED, COMPLETED
    external_study_url: str
    total_available_places: int
    places_taken: int
    reward: int
    estimated_completion_time: int
    completion_codes: tuple[dict[str, Any], ...]
    filters: tuple[dict[str, Any], ...]
    device_compatibility: tuple[str, ...]
    total_cost: int | None
    metadata: str

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Study":
        return cls(
            id=d["id"],
            name=d.get("name") or "",
            internal_name=d.get("internal_name") or "",
            status=d.get("status") or "",
            external_study_url=d.get("external_study_url") or "",
            total_available_places=int(d.get("total_available_places") or 0),
            places_taken=int(d.get("places_taken") or 0),
            reward=int(d.get("reward") or 0),
            estimated_completion_time=int(d.get("estimated_completion_time") or 0),
            completion_codes=tuple(d.get("completion_codes") or ()),
            filters=tuple(d.get("filters") or ()),
            device_compatibility=tuple(d.get("device_compatibility") or ()),
            total_cost=d.get("total_cost"),
            metadata=d.get("metadata") or "",
        )

    def code_of(self, code_type: str) -> str | None:
        """The participant code of ``code_type`` (e.g. COMPLETED), for the completion URL."""
        for item in self.completion_codes:
            actor = item.get("actor") or "participant"
            if item.get("code_type") == code_type and actor == "participant":
                return item.get("code")
        return None

    def ending_codes(self) -> frozenset[str]:
        """The participant codes that end somebody's part without a rejection: their actions ask
        the participant to return the submission or screen them out (REQUEST_RETURN,
        FIXED_SCREEN_OUT_PAYMENT)."""
        return frozenset(
            item["code"]
            for item in self.completion_codes
            if item.get("code")
            and (item.get("actor") or "participant") == "participant"
            and any(a.get("action") in ENDING_ACTIONS for a in item.get("actions") or ())
        )


@dataclass(frozen=True)
class Submission:
    id: str
    participant_id: str
    status: str  # RESERVED, ACTIVE, AWAITING REVIEW, APPROVED, REJECTED, RETURNED, TIMED-OUT...
    study_id: str
    started_at: str | None
    completed_at: str | None
    code: str  # the code the participant came back with (study_code / entered_code)
    return_requested: bool

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Submission":
        return cls(
            id=d["id"],
            participant_id=d.get("participant_id") or d.get("participant") or "",
            status=d.get("status") or "",
            study_id=d.get("study_id") or "",
            started_at=d.get("started_at"),
            completed_at=d.get("completed_at"),
            code=d.get("study_code") or d.get("entered_code") or "",
            return_requested=bool(d.get("return_requested")),
        )


@dataclass(frozen=True)
class SubmissionPage:
    results: tuple[Submission, ...]
    count: int
    has_next: bool


@dataclass(frozen=True)
class BulkBonus:
    """A bonus set up by ``set_up_bonuses``; nothing is paid until ``pay_bonuses``."""

    id: str
    study_id: str
    amount: Decimal
    fees: Decimal
    vat: Decimal
    total_amount: Decimal

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "BulkBonus":
        return cls(
            id=d["id"],
            study_id=d.get("study") or "",
            amount=_minor(d.get("amount")),
            fees=_minor(d.get("fees")),
            vat=_minor(d.get("vat")),
            total_amount=_minor(d.get("total_amount")),
        )


@dataclass(frozen=True)
class StudyCost:
    """``GET studies/{id}/cost/``: rewards and bonuses, each as rewards + fees + tax."""

    rewards: int
    fees: int
    tax: int
    currency: str

    @property
    def total(self) -> int:
        return self.rewards + self.fees + self.tax

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "StudyCost":
        part = d.get("rewards") or {}
        amount = lambda key: int((part.get(key) or {}).get("amount") or 0)  # noqa: E731
        return cls(
            rewards=amount("rewards"),
            fees=amount("fees"),
            tax=amount("tax"),
            currency=(part.get("rewards") or {}).get("currency") or "",
        )
