"""What the MTurk wrapper raises: two kinds of failure a caller must tell apart.

- ``MTurkRequestError``: the service refused the request (MTurk's ``RequestError``, an unknown
  operation, bad credentials). Sending the same call again will not help.
- ``MTurkServiceError``: MTurk could not answer (``ServiceFault``, throttling, HTTP 5xx, no
  connection) even after botocore's retries. Transient: a Celery task may retry later.

botocore's ``ClientError`` never escapes the wrapper's functions; ``ParamValidationError``
(a programming error caught before anything is sent) does.
"""

from __future__ import annotations

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

# MTurk's TurkErrorCodes the wrapper acts on. HitAlreadyExists is documented (the message
# holds the HIT id). For other repeated tokens (SendBonus, CreateAdditionalAssignmentsForHIT)
# MTurk is reported to answer 'The idempotency token "..." has already been processed.';
# the code name below is the local endpoint's, so the message is what gets matched.
HIT_ALREADY_EXISTS = "AWS.MechanicalTurk.HitAlreadyExists"
DUPLICATE_REQUEST = "AWS.MechanicalTurk.DuplicateRequest"
INVALID_ASSIGNMENT_STATE = "AWS.MechanicalTurk.InvalidAssignmentState"

# Error codes (the part of ``__type`` after '#') that mean "try again later".
TRANSIENT_CODES = frozenset(
    {
        "ServiceFault",
        "ServiceUnavailable",
        "InternalFailure",
        "InternalServerError",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "RequestTimeout",
        "RequestTimeoutException",
    }
)


class MTurkError(Exception):
    """A failed MTurk call. ``code`` is the error type (``RequestError``, ``ServiceFault``,
    ``ThrottlingException``...), ``turk_error_code`` MTurk's own code when it sent one
    (``AWS.MechanicalTurk.HitAlreadyExists``), ``attempts`` how many requests were sent."""

    def __init__(
        self, message: str, *, operation: str, code: str = "", turk_error_code: str = "", attempts: int = 1
    ) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation
        self.code = code
        self.turk_error_code = turk_error_code
        self.attempts = attempts

    def __str__(self) -> str:
        detail = f"{self.code}/{self.turk_error_code}" if self.turk_error_code else self.code
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"MTurk {self.operation} failed{tries}: {detail}: {self.message}"


class MTurkRequestError(MTurkError):
    """MTurk refused the request; retrying the same call will not succeed."""


class MTurkServiceError(MTurkError):
    """MTurk was unavailable or throttled us past botocore's retries; retry later."""


def translate(exc: Exception, operation: str) -> MTurkError:
    """The wrapper's exception for a botocore failure (``ClientError`` or a connection error)."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = error.get("Code", "") or ""
        meta = exc.response.get("ResponseMetadata", {})
        status = int(meta.get("HTTPStatusCode") or 0)
        message = error.get("Message", "") or str(exc)
        transient = code in TRANSIENT_CODES or status >= 500
        kind = MTurkServiceError if transient else MTurkRequestError
        return kind(
            message,
            operation=operation,
            code=code,
            turk_error_code=exc.response.get("TurkErrorCode", "") or "",
            attempts=int(meta.get("RetryAttempts") or 0) + 1,
        )
    if isinstance(exc, (BotoConnectionError, HTTPClientError)):
        return MTurkServiceError(str(exc), operation=operation, code=type(exc).__name__)
    raise TypeError(f"not a botocore failure: {exc!r}")


def is_duplicate_token(exc: MTurkError) -> bool:
    """Whether MTurk refused a call because its UniqueRequestToken was already processed."""
    return exc.code == "RequestError" and (
        exc.turk_error_code == DUPLICATE_REQUEST or "has already been processed" in exc.message
    )
