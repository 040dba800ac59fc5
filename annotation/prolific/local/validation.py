"""What the local endpoint refuses in a new or changed study (reference section 2), as
field-by-field messages for Prolific's 400 body."""

from __future__ import annotations

from typing import Any

from .errors import ApiError

REQUIRED = (
    "name",
    "description",
    "external_study_url",
    "prolific_id_option",
    "total_available_places",
    "estimated_completion_time",
    "reward",
)
ID_OPTIONS = ("url_parameters", "question", "not_required")
ACTORS = ("participant", "researcher")
ACTIONS = (
    "AUTOMATICALLY_APPROVE",
    "MANUALLY_REVIEW",
    "ADD_TO_PARTICIPANT_GROUP",
    "REMOVE_FROM_PARTICIPANT_GROUP",
    "REQUEST_RETURN",
    "DYNAMIC_PAYMENT",
    "FIXED_SCREEN_OUT_PAYMENT",
)
DEVICES = ("desktop", "tablet", "mobile")


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _screen_out(action: dict[str, Any], reward: Any) -> list[str]:
    """A fixed screen-out payment: a reward (minor units) below the study's, and its slots."""
    problems = []
    paid = action.get("fixed_screen_out_reward")
    if not _positive_int(paid) or (_positive_int(reward) and paid >= reward):
        problems.append("fixed_screen_out_reward must be a whole number of at least 1, below the study's reward.")
    if not _positive_int(action.get("slots")):
        problems.append("slots must be a whole number of at least 1.")
    return problems


def _codes(codes: Any, reward: Any = None) -> list[str]:
    if not isinstance(codes, list) or not codes:
        return ["Give at least one completion code."]
    problems, seen = [], set()
    for item in codes:
        if not isinstance(item, dict) or not isinstance(item.get("code_type"), str):
            problems.append("Each completion code needs a code_type.")
            continue
        code = item.get("code")
        if code in seen:
            problems.append(f"Completion code {code!r} is used twice.")
        seen.add(code)
        if item.get("actor", "participant") not in ACTORS:
            problems.append(f"actor must be one of {', '.join(ACTORS)}.")
        for action in item.get("actions") or ():
            if not isinstance(action, dict) or action.get("action") not in ACTIONS:
                problems.append(f"Unknown completion code action {action!r}.")
            elif action["action"] == "FIXED_SCREEN_OUT_PAYMENT":
                problems += _screen_out(action, reward)
    return problems


def _filters(filters: Any) -> list[str]:
    if not isinstance(filters, list):
        return ["Expected a list of filters."]
    problems = []
    for item in filters:
        if not isinstance(item, dict) or not isinstance(item.get("filter_id"), str):
            problems.append("Each filter needs a filter_id.")
        elif not (isinstance(item.get("selected_values"), list) and item["selected_values"]) and not isinstance(
            item.get("selected_range"), dict
        ):
            problems.append(f"Filter {item['filter_id']} needs selected_values or selected_range.")
    return problems


def check_study(data: dict[str, Any], *, partial: bool = False) -> None:
    """Raise a 400 naming every bad field; ``partial`` for a PATCH (nothing is required)."""
    errors: dict[str, list[str]] = {}
    for name in () if partial else REQUIRED:
        if data.get(name) in (None, ""):
            errors[name] = ["This field is required."]
    for name in ("total_available_places", "estimated_completion_time", "reward"):
        if name in data and name not in errors and not _positive_int(data[name]):
            errors[name] = ["Ensure this value is a whole number of at least 1."]
    url = data.get("external_study_url")
    if url and not str(url).startswith(("http://", "https://")):
        errors["external_study_url"] = ["Enter a valid URL."]
    if data.get("prolific_id_option") not in (None, *ID_OPTIONS):
        errors["prolific_id_option"] = [f"Must be one of {', '.join(ID_OPTIONS)}."]
    if (not partial or "completion_codes" in data) and (
        problems := _codes(data.get("completion_codes"), data.get("reward"))
    ):
        errors["completion_codes"] = problems
    if "filters" in data and (problems := _filters(data["filters"])):
        errors["filters"] = problems
    devices = data.get("device_compatibility") or []
    if not isinstance(devices, list) or set(devices) - set(DEVICES):
        errors["device_compatibility"] = [f"Choose from {', '.join(DEVICES)}."]
    if errors:
        raise ApiError(400, errors, title="Invalid request")
