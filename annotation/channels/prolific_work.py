"""Prolific's submissions in the channel interface's terms (``SubmissionInfo``)."""

from __future__ import annotations

from datetime import datetime

from django.utils.dateparse import parse_datetime

from annotation import prolific

from .base import SubmissionInfo

STATUSES = {
    "AWAITING REVIEW": "submitted",
    "APPROVED": "approved",
    "REJECTED": "rejected",
    "RETURNED": "released",
    "TIMED-OUT": "released",
    "SCREENED OUT": "released",
}


def to_submission(found: prolific.Submission, study: prolific.Study) -> SubmissionInfo:
    """The submission in the channel's terms; ``ended`` when the participant came back with the
    study's ending code (asked to return, or screened out) or was screened out."""
    our_code = study.code_of(prolific.COMPLETED)
    ended = ""
    if found.status == "SCREENED OUT":
        ended = "screened out on Prolific"
    elif found.code and found.code in study.ending_codes():
        ended = "came back with the study's return code"
    return SubmissionInfo(
        ref=found.id,
        annotator_ref=found.participant_id,
        unit_ref=found.study_id or study.id,
        status=STATUSES.get(found.status, ""),
        channel_status=found.status,
        token_ok=bool(our_code) and found.code == our_code,
        submitted_at=_when(found.completed_at),
        ended=ended,
        return_requested=found.return_requested,
    )


def _when(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None
