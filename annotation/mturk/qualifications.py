"""Qualification requirements for a HIT type, as the dicts boto3 takes.

Each builder returns one ``QualificationRequirement``; pass a list of them (at most 10) to
``create_hit_type``. ``actions_guarded`` says what an unqualified worker cannot do:
``Accept``, ``PreviewAndAccept`` or ``DiscoverPreviewAndAccept`` (not even see the HIT).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .client import LOCAL, PRODUCTION, SANDBOX, check_endpoint

LOCALE = "00000000000000000071"
PERCENT_ASSIGNMENTS_APPROVED = "000000000000000000L0"
NUMBER_HITS_APPROVED = "00000000000000000040"
ADULT = "00000000000000000060"
MASTERS = {
    PRODUCTION: "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
    SANDBOX: "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",
    LOCAL: "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",  # the local endpoint mirrors the sandbox
}
SYSTEM_QUALIFICATIONS = frozenset(
    {LOCALE, PERCENT_ASSIGNMENTS_APPROVED, NUMBER_HITS_APPROVED, ADULT, *MASTERS.values()}
)
DEFAULT_LOCALES = ("US", "GB", "CA", "AU", "NZ", "IE")
ACTIONS = ("Accept", "PreviewAndAccept", "DiscoverPreviewAndAccept")
MAX_REQUIREMENTS = 10
MAX_LOCALES = 30

Requirement = dict[str, Any]


def _requirement(type_id: str, comparator: str, actions_guarded: str, **values: Any) -> Requirement:
    if actions_guarded not in ACTIONS:
        raise ValueError(f"actions_guarded must be one of {ACTIONS}")
    return {"QualificationTypeId": type_id, "Comparator": comparator, **values, "ActionsGuarded": actions_guarded}


def locale_requirement(
    countries: Iterable[str] = DEFAULT_LOCALES, *, actions_guarded: str = "DiscoverPreviewAndAccept"
) -> Requirement:
    """Workers whose registered country is one of ``countries`` (ISO 3166 alpha-2)."""
    codes = [c.upper() for c in countries]
    if not 1 <= len(codes) <= MAX_LOCALES:
        raise ValueError(f"between 1 and {MAX_LOCALES} countries")
    if any(len(c) != 2 or not c.isalpha() for c in codes):
        raise ValueError(f"countries are two-letter codes: {codes}")
    return _requirement(LOCALE, "In", actions_guarded, LocaleValues=[{"Country": c} for c in codes])


def approval_rate_requirement(
    greater_than: int = 90, *, actions_guarded: str = "DiscoverPreviewAndAccept"
) -> Requirement:
    """Workers whose approval rate is above ``greater_than`` percent."""
    if not 0 <= greater_than < 100:
        raise ValueError("greater_than is a percentage below 100")
    return _requirement(PERCENT_ASSIGNMENTS_APPROVED, "GreaterThan", actions_guarded, IntegerValues=[greater_than])


def hits_approved_requirement(
    at_least: int = 1000, *, actions_guarded: str = "DiscoverPreviewAndAccept"
) -> Requirement:
    """Workers with at least ``at_least`` approved HITs."""
    if at_least < 0:
        raise ValueError("at_least cannot be negative")
    return _requirement(NUMBER_HITS_APPROVED, "GreaterThanOrEqualTo", actions_guarded, IntegerValues=[at_least])


def masters_requirement(endpoint: str, *, actions_guarded: str = "DiscoverPreviewAndAccept") -> Requirement:
    """Masters workers; the qualification id differs between production and sandbox."""
    return _requirement(masters_qualification_id(endpoint), "Exists", actions_guarded)


def masters_qualification_id(endpoint: str) -> str:
    return MASTERS[check_endpoint(endpoint)]


def private_requirement(
    qualification_type_id: str, *, at_least: int | None = None, actions_guarded: str = "DiscoverPreviewAndAccept"
) -> Requirement:
    """Workers we granted our own qualification (``Exists``, or a value of at least ``at_least``)."""
    if at_least is None:
        return _requirement(qualification_type_id, "Exists", actions_guarded)
    return _requirement(qualification_type_id, "GreaterThanOrEqualTo", actions_guarded, IntegerValues=[at_least])


def uses_masters(requirements: Iterable[Requirement]) -> bool:
    """Whether the requirements ask for Masters (which adds 5 % to the fee)."""
    ids = set(MASTERS.values())
    return any(r.get("QualificationTypeId") in ids for r in requirements)


def check_requirements(requirements: Iterable[Requirement]) -> list[Requirement]:
    listed = list(requirements)
    if len(listed) > MAX_REQUIREMENTS:
        raise ValueError(f"a HIT takes at most {MAX_REQUIREMENTS} qualification requirements")
    return listed
