"""How annotators are recruited: one small interface, one module per channel."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from annotation.models import Assignment, Batch


class ChannelNotSupported(NotImplementedError):
    """The channel has no such operation (an invite link cannot pay a bonus)."""


@dataclass(frozen=True)
class PublishResult:
    published: int
    failed: dict[int, str]  # unit id -> reason
    links: list[str]


class Channel(ABC):
    slug: ClassVar[str]
    title: ClassVar[str]

    @abstractmethod
    def publish(self, batch: "Batch", *, base_url: str) -> PublishResult:
        """Make the batch's units reachable by annotators on this channel."""

    @abstractmethod
    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        """Whether the channel confirms this submission is genuine, and why not."""

    def approve(self, assignment: "Assignment", *, feedback: str = "") -> None:
        """Tell the channel the work is accepted (pay where the channel pays)."""

    def reject(self, assignment: "Assignment", *, feedback: str) -> None:
        """Tell the channel the work is refused."""

    def bonus(self, assignment: "Assignment", *, amount: str, reason: str) -> None:
        raise ChannelNotSupported(f"the {self.title} channel cannot pay bonuses")

    def message(self, annotator_ids: list[str], *, subject: str, text: str) -> None:
        raise ChannelNotSupported(f"the {self.title} channel cannot message annotators")

    def block(self, annotator_id: str, *, reason: str) -> None:
        raise ChannelNotSupported(f"the {self.title} channel cannot block annotators")
