"""Prolific's error body, as the local endpoint sends it (reference/prolific.md section 1):
``{"error": {"status", "error_code", "title", "detail"}}``. Validation failures are 400 with
``detail`` mapping each field to its messages."""

from __future__ import annotations

from typing import Any

# Prolific's numeric error codes are not documented per case; these are the local ones.
CODES = {400: 140001, 401: 140100, 404: 140400, 405: 140405, 429: 140429, 500: 150000, 503: 150003}
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


class ApiError(Exception):
    def __init__(self, status: int, detail: Any, *, title: str = "", headers: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail
        self.title = title or TITLES.get(status, "Error")
        self.headers = headers

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "status": self.status,
                "error_code": CODES.get(self.status, 140000),
                "title": self.title,
                "detail": self.detail,
            }
        }


def invalid(**fields: str | list[str]) -> ApiError:
    """400 naming the fields: ``invalid(reward=["Must be at least 1."])``."""
    return ApiError(
        400,
        {name: msgs if isinstance(msgs, list) else [msgs] for name, msgs in fields.items()},
        title="Invalid request",
    )


def refused(message: str) -> ApiError:
    """400 for a request that is well-formed but not allowed now (wrong state...)."""
    return ApiError(400, message, title="Bad request")


def not_found(what: str, ident: str) -> ApiError:
    return ApiError(404, f"{what} {ident} was not found.")
