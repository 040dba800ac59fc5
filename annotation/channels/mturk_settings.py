"""HIT settings of an MTurk batch: ``Batch.channel_settings`` validated, with the defaults.

    {"title": "...", "description": "...", "keywords": "...", "reward": "0.50",
     "assignment_duration_seconds": 3600, "lifetime_seconds": 604800,
     "auto_approval_delay_seconds": 259200, "frame_height": 0,
     "locales": ["US", "GB", "CA", "AU", "NZ", "IE"],   # [] = anyone
     "min_approval_rate": 90,                            # above this percentage; null = off
     "min_hits_approved": 1000,                          # at least; null = off
     "masters": false,
     "private_qualification": "",     # name of our qualification for trusted workers
     "private_qualification_id": "",  # or its MTurk id (else found or created by name)
     "require_private_qualification": false,
     "qualification_test": false,     # the study's comprehension check as MTurk's qualification test
     "qualification_test_min_score": 100}   # percent of its questions right to accept the HITs

Assignments per unit come from ``Batch.assignments_per_unit``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from annotation.mturk.fees import money
from annotation.mturk.qualifications import DEFAULT_LOCALES, MAX_LOCALES, MAX_REQUIREMENTS
from annotation.mturk.questions import MAX_FRAME_HEIGHT

from .base import ChannelSettingsError

if TYPE_CHECKING:
    from annotation.models import Batch

DAY = 24 * 3600
MAX_TEXT = {"title": 128, "description": 2000, "keywords": 1000, "private_qualification": 200}


class HitSettingsError(ChannelSettingsError):
    """Invalid HIT settings; ``problems`` names each field and what is wrong with it."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class HitSettings:
    title: str = ""
    description: str = ""
    keywords: str = "annotation, language, research"
    reward: Decimal = Decimal("0.50")
    assignment_duration_seconds: int = 3600
    lifetime_seconds: int = 7 * DAY
    auto_approval_delay_seconds: int = 3 * DAY
    frame_height: int = 0
    locales: tuple[str, ...] = DEFAULT_LOCALES
    min_approval_rate: int | None = 90
    min_hits_approved: int | None = 1000
    masters: bool = False
    private_qualification: str = ""
    private_qualification_id: str = ""
    require_private_qualification: bool = False
    qualification_test: bool = False
    qualification_test_min_score: int = 100

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["reward"] = f"{self.reward:.2f}"
        data["locales"] = list(self.locales)
        return data

    @property
    def requirement_count(self) -> int:
        return sum(
            [
                bool(self.locales),
                self.min_approval_rate is not None,
                self.min_hits_approved is not None,
                self.masters,
                self.require_private_qualification,
                self.qualification_test,
            ]
        )


FIELDS = {f.name for f in fields(HitSettings)}
INTEGER_RANGES = {
    "assignment_duration_seconds": (30, 365 * DAY),
    "lifetime_seconds": (30, 365 * DAY),
    "auto_approval_delay_seconds": (0, 30 * DAY),
    "frame_height": (0, MAX_FRAME_HEIGHT),
    "qualification_test_min_score": (1, 100),
}
OPTIONAL_RANGES = {"min_approval_rate": (0, 99), "min_hits_approved": (0, 10**9)}


def default_texts(batch: "Batch") -> dict[str, str]:
    project = batch.project
    return {
        "title": f"{project.name}"[: MAX_TEXT["title"]],
        "description": f"Answer questions about short texts for a language research study ({project.name}).",
        "private_qualification": f"Trusted annotators of {project.name} (project {project.pk})",
    }


def hit_settings_parse(data: dict[str, Any] | None, *, defaults: dict[str, str] | None = None) -> HitSettings:
    """``data`` validated over the defaults; raises ``HitSettingsError`` naming every problem."""
    if data is not None and not isinstance(data, dict):
        raise HitSettingsError(["the HIT settings must be a JSON object"])
    data = dict(data or {})
    problems: list[str] = []
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        problems.append(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(FIELDS))}")
    values: dict[str, Any] = dict(defaults or {})
    for name in FIELDS & set(data):
        try:
            values[name] = _clean(name, data[name])
        except ValueError as exc:
            problems.append(f"{name}: {exc}")
    for name in ("title", "description"):
        if name in values and not str(values[name]).strip():
            problems.append(f"{name}: cannot be empty")
    if problems:
        raise HitSettingsError(problems)
    settings = HitSettings(**values)
    if settings.requirement_count > MAX_REQUIREMENTS:
        problems.append(f"a HIT takes at most {MAX_REQUIREMENTS} qualification requirements")
    if settings.require_private_qualification and not (
        settings.private_qualification or settings.private_qualification_id
    ):
        problems.append("require_private_qualification: name the qualification (private_qualification)")
    if problems:
        raise HitSettingsError(problems)
    return settings


def hit_settings_for(batch: "Batch") -> HitSettings:
    """The batch's HIT settings (its channel_settings over the defaults)."""
    return hit_settings_parse(batch.channel_settings, defaults=default_texts(batch))


def _clean(name: str, value: Any) -> Any:
    if name in MAX_TEXT or name == "private_qualification_id":
        if not isinstance(value, str):
            raise ValueError("must be text")
        if len(value) > MAX_TEXT.get(name, 100):
            raise ValueError(f"is longer than {MAX_TEXT.get(name, 100)} characters")
        return value.strip()
    if name == "reward":
        return _reward(value)
    if name in INTEGER_RANGES:
        return _integer(value, *INTEGER_RANGES[name])
    if name in OPTIONAL_RANGES:
        return None if value is None else _integer(value, *OPTIONAL_RANGES[name])
    if name in ("masters", "require_private_qualification", "qualification_test"):
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if name == "locales":
        return _locales(value)
    raise ValueError("is not a setting")  # pragma: no cover (FIELDS lists every name above)


def _reward(value: Any) -> Decimal:
    if isinstance(value, (bool, float)) or not isinstance(value, (str, int)):
        raise ValueError('write the amount in dollars as text, e.g. "0.50"')
    try:
        amount = money(value)
    except (ValueError, InvalidOperation):
        raise ValueError(f"{value!r} is not an amount in dollars and cents") from None
    if amount < Decimal("0.01"):
        raise ValueError("must be at least 0.01")
    return amount


def _integer(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number")
    if not low <= value <= high:
        raise ValueError(f"must be between {low} and {high}, not {value}")
    return value


def _locales(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ValueError('must be a list of country codes, e.g. ["US", "GB"] ([] for anyone)')
    codes = tuple(c.strip().upper() for c in value)
    bad = [c for c in codes if len(c) != 2 or not c.isalpha()]
    if bad:
        raise ValueError(f"not two-letter country codes: {', '.join(bad)}")
    if len(codes) > MAX_LOCALES:
        raise ValueError(f"at most {MAX_LOCALES} countries")
    return codes
