"""Qualification requirements on the local endpoint: checked when a HIT type is created,
evaluated when a worker looks for, previews or accepts a HIT (plus worker blocks)."""

from __future__ import annotations

from typing import Any

from annotation.mturk.qualifications import (
    LOCALE,
    MAX_LOCALES,
    MAX_REQUIREMENTS,
    SYSTEM_QUALIFICATIONS,
)

from .errors import invalid, not_found
from .store import Store

INTEGER_COMPARATORS = {
    "LessThan": lambda v, x: v < x,
    "LessThanOrEqualTo": lambda v, x: v <= x,
    "GreaterThan": lambda v, x: v > x,
    "GreaterThanOrEqualTo": lambda v, x: v >= x,
    "EqualTo": lambda v, x: v == x,
    "NotEqualTo": lambda v, x: v != x,
}
STEPS = ("discover", "preview", "accept")
GUARDS = {"Accept": 3, "PreviewAndAccept": 2, "DiscoverPreviewAndAccept": 1}  # first guarded step + 1


def check_requirements(store: Store, reqs: list[dict[str, Any]]) -> None:
    if len(reqs) > MAX_REQUIREMENTS:
        raise invalid(f"A HIT can have at most {MAX_REQUIREMENTS} QualificationRequirements")
    for req in reqs:
        _check_one(store, req)


def _check_one(store: Store, req: dict[str, Any]) -> None:
    type_id, comparator = req["QualificationTypeId"], req["Comparator"]
    ints, locales = req.get("IntegerValues") or [], req.get("LocaleValues") or []
    if (
        type_id not in SYSTEM_QUALIFICATIONS
        and store.row("SELECT 1 FROM qualification_types WHERE id = ?", (type_id,)) is None
    ):
        raise not_found("QualificationType", type_id)
    if comparator in ("Exists", "DoesNotExist"):
        if ints or locales:
            raise invalid(f"Comparator {comparator} takes no IntegerValues or LocaleValues")
        return
    if type_id == LOCALE:
        if ints or comparator not in ("EqualTo", "NotEqualTo", "In", "NotIn"):
            raise invalid("The Worker_Locale qualification compares LocaleValues with EqualTo, NotEqualTo, In or NotIn")
        values, limit = locales, MAX_LOCALES
    else:
        if locales:
            raise invalid(f"LocaleValues are only for the locale qualification {LOCALE}")
        values, limit = ints, 15
    if comparator in ("In", "NotIn"):
        if not 1 <= len(values) <= limit:
            raise invalid(f"Comparator {comparator} takes 1 to {limit} values")
    elif len(values) != 1:
        raise invalid(f"Comparator {comparator} takes exactly one value")


def meets(req: dict[str, Any], profile: dict[str, Any]) -> bool:
    """Whether a worker (``Store.worker`` profile) satisfies one requirement."""
    type_id, comparator = req["QualificationTypeId"], req["Comparator"]
    if type_id == LOCALE:
        has, value = True, (profile["country"], profile["subdivision"])
    else:
        value = profile["qualifications"].get(type_id)
        has = value is not None
    if comparator == "Exists":
        return has
    if comparator == "DoesNotExist":
        return not has
    if not has:
        return False
    if type_id == LOCALE:
        hits = [_same_place(value, loc) for loc in req.get("LocaleValues") or []]
        return {"EqualTo": any(hits), "In": any(hits), "NotEqualTo": not any(hits), "NotIn": not any(hits)}[comparator]
    ints = req.get("IntegerValues") or []
    if comparator == "In":
        return value in ints
    if comparator == "NotIn":
        return value not in ints
    return INTEGER_COMPARATORS[comparator](value, ints[0])


def _same_place(place: tuple[str, str | None], locale: dict[str, str]) -> bool:
    country, subdivision = place
    return locale["Country"].upper() == country and (
        not locale.get("Subdivision") or locale["Subdivision"].upper() == (subdivision or "")
    )


def allowed(reqs: list[dict[str, Any]], profile: dict[str, Any]) -> dict[str, bool]:
    """Which of discover / preview / accept the worker may do on a HIT with these requirements."""
    result = {step: profile["blocked"] is None for step in STEPS}
    for req in reqs:
        if meets(req, profile):
            continue
        guard = req.get("ActionsGuarded") or ("PreviewAndAccept" if req.get("RequiredToPreview") else "Accept")
        for step in STEPS[GUARDS[guard] - 1 :]:
            result[step] = False
    return result
