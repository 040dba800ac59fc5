"""What the MTurk wrapper returns: frozen dataclasses built from boto3's response dicts.

Money is ``Decimal`` (MTurk sends strings such as ``"0.10"``), times are timezone-aware UTC
``datetime``s, and every field the platform does not need stays in the raw response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from .questions import parse_answer_xml


def _utc(value: datetime | None) -> datetime | None:
    return value.astimezone(UTC) if value is not None else None


def _money(value: str | None) -> Decimal | None:
    return Decimal(value) if value not in (None, "") else None


@dataclass(frozen=True)
class HitType:
    hit_type_id: str
    title: str
    description: str
    reward: Decimal
    assignment_duration_seconds: int
    auto_approval_delay_seconds: int
    keywords: str = ""
    qualification_requirements: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Hit:
    hit_id: str
    hit_type_id: str
    hit_group_id: str
    status: str  # Assignable | Unassignable | Reviewable | Reviewing | Disposed
    title: str
    description: str
    question: str
    keywords: str
    reward: Decimal | None
    max_assignments: int
    creation_time: datetime | None
    expiration: datetime | None
    assignment_duration_seconds: int | None
    auto_approval_delay_seconds: int | None
    requester_annotation: str
    review_status: str
    assignments_pending: int
    assignments_available: int
    assignments_completed: int
    qualification_requirements: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "Hit":
        return cls(
            hit_id=d["HITId"],
            hit_type_id=d.get("HITTypeId", ""),
            hit_group_id=d.get("HITGroupId", ""),
            status=d.get("HITStatus", ""),
            title=d.get("Title", ""),
            description=d.get("Description", ""),
            question=d.get("Question", ""),
            keywords=d.get("Keywords", ""),
            reward=_money(d.get("Reward")),
            max_assignments=int(d.get("MaxAssignments", 0)),
            creation_time=_utc(d.get("CreationTime")),
            expiration=_utc(d.get("Expiration")),
            assignment_duration_seconds=d.get("AssignmentDurationInSeconds"),
            auto_approval_delay_seconds=d.get("AutoApprovalDelayInSeconds"),
            requester_annotation=d.get("RequesterAnnotation", ""),
            review_status=d.get("HITReviewStatus", ""),
            assignments_pending=int(d.get("NumberOfAssignmentsPending", 0)),
            assignments_available=int(d.get("NumberOfAssignmentsAvailable", 0)),
            assignments_completed=int(d.get("NumberOfAssignmentsCompleted", 0)),
            qualification_requirements=tuple(d.get("QualificationRequirements", ())),
        )


@dataclass(frozen=True)
class AssignmentInfo:
    assignment_id: str
    worker_id: str
    hit_id: str
    status: str  # Submitted | Approved | Rejected
    answer_xml: str
    accept_time: datetime | None
    submit_time: datetime | None
    auto_approval_time: datetime | None
    approval_time: datetime | None
    rejection_time: datetime | None
    deadline: datetime | None
    requester_feedback: str = ""

    @property
    def answers(self) -> dict[str, str]:
        """The submitted fields, QuestionIdentifier -> FreeText (see ``parse_answer_xml``)."""
        return parse_answer_xml(self.answer_xml)

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "AssignmentInfo":
        return cls(
            assignment_id=d["AssignmentId"],
            worker_id=d.get("WorkerId", ""),
            hit_id=d.get("HITId", ""),
            status=d.get("AssignmentStatus", ""),
            answer_xml=d.get("Answer", ""),
            accept_time=_utc(d.get("AcceptTime")),
            submit_time=_utc(d.get("SubmitTime")),
            auto_approval_time=_utc(d.get("AutoApprovalTime")),
            approval_time=_utc(d.get("ApprovalTime")),
            rejection_time=_utc(d.get("RejectionTime")),
            deadline=_utc(d.get("Deadline")),
            requester_feedback=d.get("RequesterFeedback", ""),
        )


@dataclass(frozen=True)
class Balance:
    available: Decimal
    on_hold: Decimal = Decimal("0.00")


@dataclass(frozen=True)
class QualificationType:
    qualification_type_id: str
    name: str
    description: str
    status: str
    keywords: str = ""
    auto_granted: bool = False
    creation_time: datetime | None = None

    @classmethod
    def from_api(cls, d: dict[str, Any]) -> "QualificationType":
        return cls(
            qualification_type_id=d["QualificationTypeId"],
            name=d.get("Name", ""),
            description=d.get("Description", ""),
            status=d.get("QualificationTypeStatus", ""),
            keywords=d.get("Keywords", ""),
            auto_granted=bool(d.get("AutoGranted", False)),
            creation_time=_utc(d.get("CreationTime")),
        )


@dataclass(frozen=True)
class NotifyFailure:
    worker_id: str
    code: str  # SoftFailure | HardFailure
    message: str


@dataclass(frozen=True)
class NotifyResult:
    """Outcome of ``notify_workers``: how many NotifyWorkers calls, and who was not reached."""

    calls: int
    failures: tuple[NotifyFailure, ...] = field(default_factory=tuple)
