"""What a new study is made of: the draft, its completion codes and eligibility filters, and
the participant URLs (reference/prolific.md sections 2 and 5).

Filter IDs and choice IDs change over time on Prolific: the constants below are the IDs seen
in official material (custom blocklist and previous-submission counts are not confirmed);
check them with ``list_filters`` before relying on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")
COMPLETION_URL = "https://app.prolific.com/submissions/complete"
DEVICES = frozenset({"desktop", "tablet", "mobile"})

COUNTRY_OF_RESIDENCE = "current-country-of-residence"
FIRST_LANGUAGE = "first-language"
APPROVAL_RATE = "approval_rate"
APPROVED_SUBMISSIONS = "approval_numbers"
CUSTOM_ALLOWLIST = "custom_allowlist"
CUSTOM_BLOCKLIST = "custom_blocklist"

COMPLETED = "COMPLETED"
FAILED_ATTENTION_CHECK = "FAILED_ATTENTION_CHECK"
NO_CONSENT = "NO_CONSENT"
FIXED_SCREENOUT = "FIXED_SCREENOUT"
#: the actions of a code that ends somebody's part without a rejection: Prolific asks them to
#: return the submission, or screens them out with a fixed payment (both free the place)
REQUEST_RETURN = "REQUEST_RETURN"
FIXED_SCREEN_OUT_PAYMENT = "FIXED_SCREEN_OUT_PAYMENT"
ENDING_ACTIONS = (REQUEST_RETURN, FIXED_SCREEN_OUT_PAYMENT)


def completion_code(
    code: str,
    code_type: str,
    *,
    actions: Iterable[str | dict[str, Any]] = ("MANUALLY_REVIEW",),
    actor: str = "participant",
) -> dict[str, Any]:
    """One entry of ``completion_codes``; an action is a name or a full action object."""
    return {
        "code": code,
        "code_type": code_type,
        "actor": actor,
        "actions": [a if isinstance(a, dict) else {"action": a} for a in actions],
    }


def standard_codes(
    completed: str,
    failed_check: str,
    *,
    return_reason: str = "You did not pass the attention or consent step.",
    screen_out_reward: int | None = None,
    screen_out_slots: int = 0,
) -> list[dict[str, Any]]:
    """The platform's two endings: done (manual review: the quality run decides), and a
    failed attention or consent step, which never counts against the participant: Prolific asks
    them to return the submission (REQUEST_RETURN) or, with ``screen_out_reward`` (minor units,
    below the reward; a feature Prolific must have enabled on the workspace), screens them out
    with that fixed payment (FIXED_SCREEN_OUT_PAYMENT, at most ``screen_out_slots`` times; the
    study pauses when they are used). Either frees the place."""
    if screen_out_reward is None:
        second = completion_code(
            failed_check, FAILED_ATTENTION_CHECK, actions=[{"action": REQUEST_RETURN, "return_reason": return_reason}]
        )
    else:
        if screen_out_reward <= 0 or screen_out_slots <= 0:
            raise ValueError("a fixed screen-out needs a positive reward and at least one slot")
        action = {
            "action": FIXED_SCREEN_OUT_PAYMENT,
            "fixed_screen_out_reward": screen_out_reward,
            "slots": screen_out_slots,
        }
        second = completion_code(failed_check, FIXED_SCREENOUT, actions=[action])
    return [completion_code(completed, COMPLETED), second]


def select_filter(filter_id: str, values: Iterable[str]) -> dict[str, Any]:
    """A select filter: ``values`` are choice IDs (or participant/group IDs), never labels."""
    chosen = [str(v) for v in values]
    if not chosen:
        raise ValueError(f"filter {filter_id} needs at least one value")
    return {"filter_id": filter_id, "selected_values": chosen}


def range_filter(filter_id: str, *, lower: float | None = None, upper: float | None = None) -> dict[str, Any]:
    """A range filter; at least one bound."""
    if lower is None and upper is None:
        raise ValueError(f"filter {filter_id} needs a lower or an upper bound")
    bounds = {key: value for key, value in (("lower", lower), ("upper", upper)) if value is not None}
    return {"filter_id": filter_id, "selected_range": bounds}


def external_study_url(base_url: str, **extra: str) -> str:
    """Our task URL with the three placeholders as PROLIFIC_PID, STUDY_ID and SESSION_ID."""
    params = {**extra, "PROLIFIC_PID": PLACEHOLDERS[0], "STUDY_ID": PLACEHOLDERS[1], "SESSION_ID": PLACEHOLDERS[2]}
    query = "&".join(f"{k}={v}" if v in PLACEHOLDERS else urlencode({k: v}) for k, v in params.items())
    return f"{base_url}{'&' if '?' in base_url else '?'}{query}"


def completion_url(code: str, *, base: str = COMPLETION_URL) -> str:
    """Where the participant's browser goes at the end (``base`` is configurable so the local
    endpoint's ``/submissions/complete`` can stand in for Prolific's)."""
    return f"{base}?{urlencode({'cc': code})}"


@dataclass(frozen=True)
class StudyDraft:
    """A study to create. ``reward`` in minor units, times in minutes."""

    name: str
    description: str
    external_study_url: str
    total_available_places: int
    reward: int
    estimated_completion_time: int
    completion_codes: tuple[dict[str, Any], ...]
    internal_name: str = ""
    filters: tuple[dict[str, Any], ...] = ()
    device_compatibility: tuple[str, ...] = ()
    maximum_allowed_time: int | None = None
    study_labels: tuple[str, ...] = ("annotation",)
    project: str = ""
    metadata: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        """The ``POST /studies/`` body; refuses what would break the participant's way in."""
        missing = [p for p in PLACEHOLDERS if p not in self.external_study_url]
        if missing:
            raise ValueError(f"external_study_url lacks {', '.join(missing)}")
        if not self.completion_codes:
            raise ValueError("a study needs at least one completion code")
        unknown = set(self.device_compatibility) - DEVICES
        if unknown:
            raise ValueError(f"unknown devices {sorted(unknown)}; known: {sorted(DEVICES)}")
        body: dict[str, Any] = {
            "name": self.name,
            "internal_name": self.internal_name or None,
            "description": self.description,
            "external_study_url": self.external_study_url,
            "prolific_id_option": "url_parameters",
            "total_available_places": self.total_available_places,
            "reward": self.reward,
            "estimated_completion_time": self.estimated_completion_time,
            "completion_codes": list(self.completion_codes),
            "filters": list(self.filters),
            "device_compatibility": list(self.device_compatibility),
            "study_labels": list(self.study_labels),
        }
        optional = {
            "maximum_allowed_time": self.maximum_allowed_time,
            "project": self.project,
            "metadata": self.metadata,
        }
        body.update({k: v for k, v in optional.items() if v})
        return {**body, **self.extra}
