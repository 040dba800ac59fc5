"""How our units become MTurk HITs and MTurk's assignments our submissions, for
``channels.mturk``: its failures as the channel interface's, the ExternalQuestion address, the
publish token of a unit's HIT, the HIT ids a unit was published as, an assignment read back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from xml.etree.ElementTree import ParseError

from django.urls import NoReverseMatch, reverse

from annotation import mturk
from annotation.mturk.tokens import COMPLETION_FIELD, completion_token_valid

from .base import ChannelError, ChannelUnavailable, SubmissionInfo

if TYPE_CHECKING:
    from annotation.models import Batch, Unit

STATUSES = {"Submitted": "submitted", "Approved": "approved", "Rejected": "rejected"}


@contextmanager
def translated() -> Iterator[None]:
    """MTurk's failures as the channel interface's: refused or temporarily unavailable."""
    try:
        yield
    except mturk.MTurkServiceError as exc:
        raise ChannelUnavailable(str(exc)) from exc
    except mturk.MTurkError as exc:
        raise ChannelError(str(exc)) from exc


def external_url(base_url: str) -> str:
    """The ExternalQuestion page: this site's ``surveys:mturk`` view (MTurk appends the ids)."""
    try:
        path = reverse("surveys:mturk")
    except NoReverseMatch:  # the worker-side view is not routed yet
        path = "/mturk/"
    return base_url.rstrip("/") + path


def publish_token(batch: "Batch", unit: "Unit", round_: int) -> str:
    """The UniqueRequestToken of a unit's HIT in a round: the same on every retry and click.

    The batch's creation time keeps tokens apart if ids are ever reused (a restored database)."""
    return mturk.unique_request_token("publish", batch.pk, batch.created_at.isoformat(), unit.pk, round_)


def unit_refs(unit: "Unit") -> set[str]:
    """Every HIT id the unit was published as."""
    return {*unit.postings.values_list("ref", flat=True), unit.channel_ref} - {""}


def to_submission(info: mturk.AssignmentInfo) -> SubmissionInfo:
    return SubmissionInfo(
        ref=info.assignment_id,
        annotator_ref=info.worker_id,
        unit_ref=info.hit_id,
        status=STATUSES.get(info.status, ""),
        channel_status=info.status,
        token_ok=_token_ok(info),
        submitted_at=info.submit_time,
    )


def _token_ok(info: mturk.AssignmentInfo) -> bool:
    try:
        token = info.answers.get(COMPLETION_FIELD)
    except ParseError:
        return False
    return completion_token_valid(info.assignment_id, token)
