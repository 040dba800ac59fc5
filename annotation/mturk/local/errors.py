"""MTurk's error shapes, as the local endpoint sends them (reference/mturk.md).

HTTP 400 + ``{"__type": "...#RequestError", "Message": ..., "TurkErrorCode": ...}`` for a
refused request; HTTP 500 ``ServiceFault`` (botocore retries it); HTTP 400
``ThrottlingException`` (botocore's standard and adaptive modes retry it). Messages end with
MTurk's millisecond timestamp in parentheses, as the real service's do.
"""

from __future__ import annotations

import time

TYPE_PREFIX = "com.amazonaws.mturk.requester"
STATUS = {
    "RequestError": 400,
    "ServiceFault": 500,
    "ThrottlingException": 400,
    "UnknownOperationException": 400,
    "SerializationException": 400,
}
KINDS = ("RequestError", "ServiceFault", "ThrottlingException")


class ApiError(Exception):
    def __init__(self, kind: str, message: str, turk_error_code: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.turk_error_code = turk_error_code

    @property
    def status(self) -> int:
        return STATUS.get(self.kind, 400)

    def body(self) -> dict:
        body = {"__type": f"{TYPE_PREFIX}#{self.kind}", "Message": f"{self.message} ({int(time.time() * 1000)})"}
        if self.turk_error_code:
            body["TurkErrorCode"] = self.turk_error_code
        return body


def request_error(turk_error_code: str, message: str) -> ApiError:
    return ApiError("RequestError", message, turk_error_code)


def invalid(message: str) -> ApiError:
    """A parameter the service refuses (shape, range or meaning)."""
    return ApiError("RequestError", message, "AWS.MechanicalTurk.ParameterValidationError")


def not_found(kind: str, entity_id: str) -> ApiError:
    # Mirrors the real service's "Hit 311H... does not exist." messages.
    return request_error(f"AWS.MechanicalTurk.{kind}DoesNotExist", f"{kind} {entity_id} does not exist.")
