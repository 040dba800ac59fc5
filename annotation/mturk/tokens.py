"""Signed tokens of the MTurk protocol (no database): the completion token our page posts to
MTurk with the assignment, and the capability that opens one assignment's pages in the frame.

MTurk's frame makes our cookies third-party (Safari drops them), so the work page is keyed by
a signed token in its URL instead of a session; sync checks the completion token before paying.
"""

from __future__ import annotations

from django.core import signing
from django.utils.crypto import constant_time_compare

COMPLETION_SALT = "annotation.mturk.completion"
WORK_SALT = "annotation.mturk.work"
#: the field of the externalSubmit form that carries the completion token
COMPLETION_FIELD = "completionToken"


def completion_token(assignment_id: str) -> str:
    """What a genuine submission of this MTurk assignment carries in its answer."""
    return signing.Signer(salt=COMPLETION_SALT).signature(assignment_id)


def completion_token_valid(assignment_id: str, token: str | None) -> bool:
    return token is not None and constant_time_compare(completion_token(assignment_id), token)


def work_token(assignment_pk: int, submit_to: str) -> str:
    """The URL capability for one of our assignments (its pages, saves and final submit), with
    the MTurk host the finished HIT is posted back to (checked when the token was made)."""
    return signing.dumps({"a": assignment_pk, "s": submit_to}, salt=WORK_SALT)


def work_token_data(token: str) -> tuple[int, str] | None:
    """(assignment pk, submit host) of a genuine token; None for anything else."""
    try:
        data = signing.loads(token, salt=WORK_SALT)
        return int(data["a"]), str(data["s"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
