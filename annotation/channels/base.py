"""How annotators are recruited: one small interface, one module per channel.

Services speak only this interface; a channel's own client (boto3 for MTurk) and its error
types stay inside the channel's module. Failures of a remote channel come out as
``ChannelError`` (refused: retrying will not help) or ``ChannelUnavailable`` (transient).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from .review_rules import ReviewRules

if TYPE_CHECKING:
    from annotation.models import Annotator, Assignment, Batch, Unit


class ChannelNotSupported(NotImplementedError):
    """The channel has no such operation (an invite link cannot pay a bonus)."""


class ChannelError(Exception):
    """The channel refused a request; sending it again will not help."""


class ChannelSettingsError(ValueError):
    """A batch's settings for its channel are not valid; the message names every problem."""


class ChannelUnavailable(ChannelError):
    """The channel could not answer (throttled, down, no connection): try again later."""


class ChannelOutcomeUnknown(ChannelUnavailable):
    """A call that is not safe to repeat (paying) got no usable answer: it may have taken effect."""


@dataclass(frozen=True)
class PublishResult:
    published: int
    failed: dict[int, str]  # unit id -> reason
    links: list[str]
    #: unit id -> the channel's reference (HIT id) of every unit reachable now
    refs: dict[int, str] = field(default_factory=dict)
    #: units that failed for a transient reason (publishing again may succeed)
    retryable: frozenset[int] = frozenset()


#: called by ``publish`` after each unit: (unit, channel ref or None, failure reason or None)
UnitCallback = Callable[["Unit", "str | None", "str | None"], None]


@dataclass(frozen=True)
class SubmissionInfo:
    """A channel's record of one piece of submitted work, in channel-neutral terms."""

    ref: str  # the channel's assignment id
    annotator_ref: str  # the channel's worker id
    unit_ref: str  # the channel's id of what was handed out (HIT id)
    status: str  # an Assignment.Status value: submitted | approved | rejected
    channel_status: str  # the channel's own word (Submitted, Approved, Rejected)
    token_ok: bool  # the answer carries the completion token our page issued
    submitted_at: datetime | None = None
    #: the site's own sign that the study ended the person's part (Prolific: they came back with
    #: the study's return code, or were screened out), in words; "" when there is none
    ended: str = ""
    #: the site already asked the person to return the work (Prolific's ``return_requested``)
    return_requested: bool = False


@dataclass(frozen=True)
class EntryCheck:
    """What a recruiting site says, as somebody enters, about the ids they came with.

    ``confirmed``: True, the site's own live work of that person on that posting; False, not
    (refuse: no work is handed out); None, the site cannot say now (MTurk knows an assignment
    only once it is submitted; a site that did not answer): the work is held apart until sync
    confirms it. ``reason`` says why, for the person (refused) or the record (held apart)."""

    confirmed: bool | None
    reason: str = ""


@dataclass(frozen=True)
class UnitCost:
    """What one assignment costs on the channel: the reward and the channel's fee."""

    reward: Decimal
    fee: Decimal

    @property
    def total(self) -> Decimal:
        return self.reward + self.fee


@dataclass(frozen=True)
class UnitState:
    """A published unit as the channel sees it after a change (a HIT's status and expiry)."""

    ref: str
    status: str
    expiration: datetime | None
    max_assignments: int


@dataclass(frozen=True)
class MessageResult:
    calls: int
    failed: dict[str, str] = field(default_factory=dict)  # annotator ref -> reason


@dataclass(frozen=True)
class AnnotatorOrigin:
    """Where an annotator came from as the researcher names it (an invite link's name, the
    channel's), and a rank that lists annotators in the same order on every page whoever
    finished first: by the link (or channel), then by when they joined."""

    name: str
    rank: tuple[int, int]


CURRENCY_SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}


def money(amount: object, currency: str) -> str:
    """``amount`` with its currency's sign ("£12.60"), or its code where there is no sign ("CHF 3.00")."""
    sign = CURRENCY_SYMBOLS.get(currency)
    return f"{sign}{amount}" if sign else f"{currency} {amount}"


def request_token(*parts: object) -> str:
    """A deterministic request token (64 hex characters) for the given parts: the same work gets
    the same token, so a channel that deduplicates by token never does it twice."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


# Problems a submission can have (sync records them; such work is never approved or paid).
UNKNOWN = "the channel does not know this work"
WORKER_MISMATCH = "participant mismatch"
UNIT_MISMATCH = "posting mismatch"
TOKEN_WRONG = "completion token missing or wrong"
NO_ANSWERS = "no saved answers on our side"
INCOMPLETE = "not every item was completed on our side"


#: problems that mean the site does not confirm the ids the work came under (not its work, or
#: another person's or posting's): such work is held apart (``Assignment.confirmed``)
ID_PROBLEMS = (UNKNOWN, WORKER_MISMATCH, UNIT_MISMATCH)


def unconfirmed_by(problems: Iterable[str]) -> str:
    """The problems of a submission that leave its ids unconfirmed, joined ("" when confirmed)."""
    return "; ".join(p for p in problems if p.startswith(ID_PROBLEMS))


def submission_problems(
    assignment: "Assignment", submission: SubmissionInfo, unit_refs: Iterable[str], *, channel: str
) -> list[str]:
    """Why ``submission`` is not genuine work of ``assignment`` ([] when it is).

    ``unit_refs``: the channel references the assignment's unit was published under;
    ``channel``: the slug the assignment's annotator must have.
    """
    problems = []
    annotator = assignment.annotator
    if annotator.channel != channel:
        problems.append(f"{WORKER_MISMATCH}: our annotator came by {annotator.channel}, not {channel}")
    elif annotator.external_id != submission.annotator_ref:
        problems.append(
            f"{WORKER_MISMATCH}: the channel says {submission.annotator_ref}, our annotator is {annotator.external_id}"
        )
    if submission.unit_ref not in set(unit_refs):
        problems.append(
            f"{UNIT_MISMATCH}: the channel says {submission.unit_ref}, "
            f"our unit was published as {', '.join(sorted(unit_refs)) or 'nothing'}"
        )
    if not submission.token_ok:
        problems.append(TOKEN_WRONG)
    completed = [r.completed_at is not None for r in assignment.responses.all()]
    if not any(completed):
        problems.append(NO_ANSWERS)
    elif not all(completed):
        problems.append(INCOMPLETE)
    return problems


class Channel(ABC):
    slug: ClassVar[str]
    title: ClassVar[str]
    #: the name in running text ("MTurk"); the title when empty
    short_name: ClassVar[str] = ""
    #: how the batch page says where published units are ("published as HITs")
    published_as: ClassVar[str] = "published"
    #: True for a recruiting site (MTurk, Prolific): units are published there as postings, and
    #: its submissions are synced and reviewed; False for links the platform hands out itself
    recruits_remotely: ClassVar[bool] = False

    #: True for a recruiting site: anybody can type its ids into our entry URL, so work entered
    #: under them is held apart (``Assignment.confirmed`` False) until the site confirms them;
    #: False where the platform made the credential itself (an invite link's token)
    entries_need_confirmation: ClassVar[bool] = False
    #: True when the site can look up work in progress (``confirm_entry``), so entries are
    #: confirmed before work is handed out; work it could not confirm then (no answer) holds its
    #: place only UNCONFIRMED_RELEASE_MINUTES. False: the site confirms at sync (MTurk: once
    #: submitted) and hands out its places itself, so unconfirmed work holds none of ours.
    confirms_at_entry: ClassVar[bool] = False

    #: the channel's word (SubmissionInfo.channel_status) for work waiting for our review
    awaiting_review_status: ClassVar[str] = ""
    #: True: the site can ask a person to give back work the study ended (``send_back``: unpaid,
    #: never counted against them); False: such work, once submitted, is approved at review
    #: (MTurk: it cannot pay less than the reward, and would approve it anyway when the HIT's
    #: auto-approval delay runs out; a rejection would harm somebody who followed the rules)
    sends_back: ClassVar[bool] = False
    #: a site that pays bonuses as orders (set up, then paid) takes at most this many per order;
    #: 0: bonuses go one by one through ``bonus``, whose request token makes a repeat a no-op
    bulk_bonus_rows: ClassVar[int] = 0
    #: the currency of rewards, fees, bonuses and the balance (ISO 4217)
    currency: ClassVar[str] = "USD"
    #: what the publish page says about the cost before the figures (who charges what, and when)
    cost_note: ClassVar[str] = ""
    #: what the recruiting pages call its postings ("Extend the HITs on MTurk")
    posting_noun: ClassVar[str] = "postings"
    #: what the add-assignments page says about what they cost
    added_places_note: ClassVar[str] = ""
    #: the batch form's help on the channel settings (their keys and defaults)
    settings_help: ClassVar[str] = "The channel's settings as JSON."
    #: what the review of its work can do, and the rules of the texts it sends (none: no review)
    review_rules: ClassVar[ReviewRules] = ReviewRules()

    @property
    def short_title(self) -> str:
        return self.short_name or self.title

    def reviewed_status(self, *, approved: bool) -> str:
        """The channel's word for work after our review (stored until the next sync)."""
        return "approved" if approved else "rejected"

    def annotator_origins(self, annotators: "list[Annotator]") -> "dict[int, AnnotatorOrigin]":
        """Each annotator's origin by id (default: the channel's name, ranked by who joined first).
        Never a worker's id on the site: the pages that show it may be seen by other annotators."""
        return {a.pk: AnnotatorOrigin(self.short_title, (0, a.pk)) for a in annotators}

    def check_settings(self, batch: "Batch") -> None:
        """Raise ChannelSettingsError when the batch's settings for this channel are not valid."""

    def audience(self, batch: "Batch") -> str:
        """Who may take the batch's work, in the channel's words (empty: anybody it reaches)."""
        return ""

    def entry_problem(self, *, participant: str, posting: str, work: str) -> str:
        """Why the ids somebody entered with are not in the site's format, for that person
        ("" when they are): a trailing space or lower case never starts new work."""
        return ""

    def confirm_entry(self, *, participant: str, posting: str, work: str) -> EntryCheck:
        """Ask the site whether ``work`` is its live work of ``participant`` on ``posting``."""
        return EntryCheck(confirmed=None, reason=f"{self.short_title} confirms work at sync")

    @abstractmethod
    def publish(self, batch: "Batch", *, base_url: str, on_unit: UnitCallback | None = None) -> PublishResult:
        """Make the batch's units reachable by annotators on this channel (idempotent)."""

    @abstractmethod
    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        """Whether the channel confirms this submission is genuine, and why not."""

    def approve(self, assignment: "Assignment", *, feedback: str = "") -> None:
        """Tell the channel the work is accepted (pay where the channel pays)."""

    def reject(self, assignment: "Assignment", *, feedback: str, category: str = "") -> None:
        """Tell the channel the work is refused (`category`: one of `review_rules`' rejection
        categories; "": the batch's default, where the channel asks for one)."""

    def reject_ref(self, ref: str, *, feedback: str, category: str = "") -> None:
        """Refuse a piece of work by the channel's id (work that has no assignment of ours)."""
        raise ChannelNotSupported(f"the {self.title} channel has no work to reject")

    def send_back(self, ref: str, *, reason: str) -> str:
        """Ask the person to give back the work ``ref`` whose part the study ended (``reason``),
        which frees its place and never counts against them; the channel's word for it now.
        Only where ``sends_back``."""
        raise ChannelNotSupported(f"the {self.title} channel cannot ask for work back")

    def asks_comprehension_itself(self, batch: "Batch") -> bool:
        """Whether the recruiting site asks the batch's comprehension check itself before the
        work (an MTurk qualification test), so the study does not ask it again."""
        return False

    def failed_checks_to_reject(self, batch: "Batch", *, category: str = "") -> int:
        """How many failed check answers (attention or gold items) the channel's policy asks of a
        person before work may be rejected in `category` ("": the batch's default); 0: no such rule."""
        return 0

    def bonus(self, assignment: "Assignment", *, amount: str, reason: str, request_token: str = "") -> None:
        """Pay ``amount`` on top; the same ``request_token`` never pays twice."""
        raise ChannelNotSupported(f"the {self.title} channel cannot pay bonuses")

    def bonuses_set_up(self, batch: "Batch", amounts: dict[str, Decimal]) -> str:
        """Set up, without paying, one order of bonuses ``{the channel's work id: amount}``; the
        order's id. Nothing is paid, so a repeat only leaves an unpaid order behind."""
        raise ChannelNotSupported(f"the {self.title} channel does not pay bonuses in bulk")

    def bonuses_pay(self, batch: "Batch", ref: str) -> None:
        """Pay the order ``ref``. Not safe to repeat: ``ChannelOutcomeUnknown`` when it may have been paid."""
        raise ChannelNotSupported(f"the {self.title} channel does not pay bonuses in bulk")

    def currency_code(self) -> str:
        """The account's currency now (a channel whose currency is a setting reads it here)."""
        return self.currency

    def message(self, annotator_ids: list[str], *, subject: str, text: str) -> MessageResult:
        raise ChannelNotSupported(f"the {self.title} channel cannot message annotators")

    def block(self, annotator_id: str, *, reason: str) -> None:
        raise ChannelNotSupported(f"the {self.title} channel cannot block annotators")

    def grant_qualification(self, annotator_ids: list[str], *, name: str, description: str) -> str:
        """Grant the private qualification ``name`` (created when new); its channel id."""
        raise ChannelNotSupported(f"the {self.title} channel has no qualifications to grant")

    def grant_batch_qualification(self, annotator_ids: list[str], *, batch: "Batch", description: str) -> str:
        """Grant the qualification the batch's settings name (its channel id)."""
        raise ChannelNotSupported(f"the {self.title} channel has no qualifications to grant")

    def unit_cost(self, batch: "Batch", *, max_assignments: int | None = None) -> UnitCost | None:
        """What one assignment of the batch costs (None: the channel does not pay)."""
        return None

    def balance(self) -> Decimal | None:
        """The money available on the channel's account (None: the channel does not pay)."""
        return None

    def submissions(self, unit_ref: str) -> list[SubmissionInfo]:
        """Every submitted, approved or rejected piece of work of one published unit."""
        raise ChannelNotSupported(f"the {self.title} channel has nothing to sync")

    def submission(self, ref: str) -> SubmissionInfo | None:
        """One piece of work by the channel's id; None when the channel does not know it."""
        raise ChannelNotSupported(f"the {self.title} channel has nothing to sync")

    def close_unit(self, unit_ref: str) -> UnitState:
        """Stop new annotators from taking the unit (work in progress may still come in)."""
        raise ChannelNotSupported(f"the {self.title} channel cannot expire units")

    def pause_unit(self, unit_ref: str) -> UnitState:
        """Stop new annotators for now (work in progress goes on); ``resume_unit`` reopens."""
        raise ChannelNotSupported(f"the {self.title} channel cannot pause")

    def resume_unit(self, unit_ref: str) -> UnitState:
        raise ChannelNotSupported(f"the {self.title} channel cannot resume")

    def extend_unit(self, unit_ref: str, *, until: datetime) -> UnitState:
        """Keep the unit open until ``until``."""
        raise ChannelNotSupported(f"the {self.title} channel cannot extend units")

    def add_assignments(self, unit_ref: str, *, number: int, request_token: str) -> UnitState:
        """Let ``number`` more annotators take the unit; the same token never adds twice."""
        raise ChannelNotSupported(f"the {self.title} channel cannot add assignments")
