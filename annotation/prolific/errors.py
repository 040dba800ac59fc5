"""What the Prolific client raises, and how an HTTP answer becomes one of these errors.

The classes answer the caller's question "what now?":

- ``ProlificAuthError``: the token was refused; fix ``PROLIFIC_API_TOKEN``.
- ``ProlificValidationError``: Prolific refused the request (HTTP 400); ``fields`` names the
  offending fields. ``ProlificInsufficientFundsError`` is the "top up the balance" case.
- ``ProlificNotFoundError``: the id is unknown to this token's workspace.
- ``ProlificUnavailableError``: throttled (429), 5xx or no connection, even after retries.
  Transient: a Celery task may retry later. ``ProlificOutcomeUnknownError`` is its subclass
  for a call that is not safe to repeat and may have taken effect (look before retrying).

Prolific's error body (reference/prolific.md section 1) is
``{"error": {"status", "error_code", "title", "detail": str | [str] | {field: [msg]}}}``;
some endpoints answer a flat ``{"message", "detail"}``. Both are read.
"""

from __future__ import annotations

from typing import Any

TOKEN_HELP = (
    "Check PROLIFIC_API_TOKEN: make a token in the Prolific app (Settings > API "
    "tokens) for the workspace that runs the studies; it is sent as 'Token <key>'."
)
FUNDS_HELP = (
    "Top up the workspace balance in the Prolific app (the API cannot), or lower "
    "the places or the reward, then publish again."
)
# Words in the title/detail that mark a refusal for lack of money. Prolific's exact body for a
# publish with a short balance is not documented (reference section 2: "the publish fails").
_FUNDS_WORDS = ("insufficient funds", "insufficient balance", "not enough funds", "top up")


class ProlificError(Exception):
    """A failed Prolific call: ``operation`` (e.g. ``create_study``), the HTTP ``status``
    (0 without an answer), Prolific's ``error_code`` and ``title``, and the raw ``detail``."""

    def __init__(
        self,
        message: str,
        *,
        operation: str,
        status: int = 0,
        error_code: Any = None,
        title: str = "",
        detail: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation
        self.status = status
        self.error_code = error_code
        self.title = title
        self.detail = detail

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        return f"Prolific {self.operation} failed{status}: {self.message}"


class ProlificAuthError(ProlificError):
    """HTTP 401/403: the token is missing, wrong, deleted, or of another workspace."""


class ProlificNotFoundError(ProlificError):
    """HTTP 404: no such study/submission/bonus for this token."""


class ProlificValidationError(ProlificError):
    """HTTP 400 (or another 4xx): the request was refused; sending it again will not help.
    ``fields`` maps each named field to Prolific's messages (empty when none was named)."""

    def __init__(self, message: str, *, fields: dict[str, tuple[str, ...]] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.fields = fields or {}


class ProlificInsufficientFundsError(ProlificValidationError):
    """The workspace balance does not cover the study or the bonus."""


class ProlificUnavailableError(ProlificError):
    """Prolific throttled us or could not answer, after the client's retries. Retry later."""


class ProlificOutcomeUnknownError(ProlificUnavailableError):
    """A call that is unsafe to repeat (create, pay) got no usable answer: it may or may not
    have taken effect. Look (find the study by internal_name, read the bonus) before retrying."""


def _fields(detail: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(detail, dict):
        return {}
    return {
        str(name): tuple(str(m) for m in (msgs if isinstance(msgs, list) else [msgs])) for name, msgs in detail.items()
    }


def _detail_text(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in _fields(detail).items())
    if isinstance(detail, list):
        return " ".join(str(item) for item in detail)
    return "" if detail is None else str(detail)


def parse_body(body: Any) -> tuple[Any, str, Any]:
    """``(error_code, title, detail)`` from either of Prolific's error shapes."""
    if not isinstance(body, dict):
        return None, "", body if body else None
    error = body.get("error")
    if isinstance(error, dict):
        return error.get("error_code"), str(error.get("title") or ""), error.get("detail")
    return None, str(body.get("message") or ""), body.get("detail")


def from_response(operation: str, status: int, body: Any) -> ProlificError:
    """The error for an HTTP answer that is not a success (after the client's retries)."""
    error_code, title, detail = parse_body(body)
    text = _detail_text(detail) or title or "no detail given"
    kwargs = dict(operation=operation, status=status, error_code=error_code, title=title, detail=detail)
    if status in (401, 403):
        return ProlificAuthError(f"Prolific refused the API token: {text}. {TOKEN_HELP}", **kwargs)
    if status == 404:
        return ProlificNotFoundError(
            f"{text}. Check the id, and that PROLIFIC_API_TOKEN belongs to the workspace that owns it.", **kwargs
        )
    if status == 429:
        return ProlificUnavailableError(
            f"Prolific is throttling requests (429): {text}. Retry later; use bulk calls.", **kwargs
        )
    if status >= 500:
        return ProlificUnavailableError(f"Prolific could not answer: {text}. Retry later.", **kwargs)
    lowered = f"{title} {text}".lower()
    if any(word in lowered for word in _FUNDS_WORDS):
        return ProlificInsufficientFundsError(f"{text}. {FUNDS_HELP}", fields=_fields(detail), **kwargs)
    return ProlificValidationError(f"Prolific refused the request: {text}", fields=_fields(detail), **kwargs)
