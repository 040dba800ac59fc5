"""Study settings of a Prolific batch: ``Batch.channel_settings`` validated, with the defaults.

    {"name": "...", "description": "...",          # default: the project's name and instructions
     "reward": "1.50",                               # per participant, workspace currency
     "estimated_minutes": 10,                        # honest: Prolific pays by the hour
     "maximum_minutes": null,                        # null: Prolific's maximum
     "first_languages": ["0"], "countries": ["0"],   # Prolific choice ids (GET /filters/)
     "min_approval_rate": 95,                        # percent; null = off
     "min_previous_submissions": 100,                # null = off
     "allow_list": [], "block_list": [],             # participant ids
     "devices": ["desktop"],                         # [] = any device
     "rejection_category": "FAILED_INSTRUCTIONS",
     "screen_out_reward": null,                      # e.g. "0.20": screen out with this fixed payment
     "screen_out_slots": null}                       # at most this many (null: the study's places)

The consent text and the comprehension check are the batch's study file (``Batch.study``), as on
every channel; a participant who declines or fails the check is sent back to Prolific with the
study's second completion code: FAILED_ATTENTION_CHECK, whose action asks them to return the
study, or with ``screen_out_reward`` FIXED_SCREENOUT, which screens them out with that fixed
payment (a feature Prolific enables per workspace). Either frees the place without a rejection.

Places: one per unit and annotator (``Batch.assignments_per_unit``), one study per batch.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from annotation import prolific
from annotation.prolific.drafts import DEVICES

from .base import ChannelSettingsError

if TYPE_CHECKING:
    from annotation.models import Batch

#: Prolific's floor is about £6 an hour; below it the study is refused on Prolific
MIN_HOURLY = Decimal("6.00")
LISTS = ("first_languages", "countries", "allow_list", "block_list", "devices")


@dataclass(frozen=True)
class StudySettings:
    name: str = ""
    description: str = ""
    reward: Decimal = Decimal("1.50")
    estimated_minutes: int = 10
    maximum_minutes: int | None = None
    first_languages: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    min_approval_rate: int | None = 95
    min_previous_submissions: int | None = None
    allow_list: tuple[str, ...] = ()
    block_list: tuple[str, ...] = ()
    devices: tuple[str, ...] = ("desktop",)
    rejection_category: str = "FAILED_INSTRUCTIONS"
    screen_out_reward: Decimal | None = None
    screen_out_slots: int | None = None

    @property
    def reward_minor(self) -> int:
        """The reward in pence/cents, as the API wants it."""
        return int(self.reward * 100)

    @property
    def screen_out_minor(self) -> int | None:
        """The fixed screen-out payment in pence/cents (None: ask for a return instead)."""
        return None if self.screen_out_reward is None else int(self.screen_out_reward * 100)

    def filters(self) -> tuple[dict[str, Any], ...]:
        """Prolific eligibility filters of these settings (top-level entries are ANDed)."""
        found = []
        if self.first_languages:
            found.append(prolific.select_filter(prolific.FIRST_LANGUAGE, self.first_languages))
        if self.countries:
            found.append(prolific.select_filter(prolific.COUNTRY_OF_RESIDENCE, self.countries))
        if self.min_approval_rate is not None:
            found.append(prolific.range_filter(prolific.APPROVAL_RATE, lower=self.min_approval_rate, upper=100))
        if self.min_previous_submissions is not None:
            found.append(prolific.range_filter(prolific.APPROVED_SUBMISSIONS, lower=self.min_previous_submissions))
        if self.allow_list:
            found.append(prolific.select_filter(prolific.CUSTOM_ALLOWLIST, self.allow_list))
        if self.block_list:
            found.append(prolific.select_filter(prolific.CUSTOM_BLOCKLIST, self.block_list))
        return tuple(found)

    def audience(self) -> str:
        """Who may take part, in words (empty: anybody on Prolific)."""
        parts = [
            f"{label} {', '.join(values)}"
            for label, values in (
                ("first language", self.first_languages),
                ("country", self.countries),
                ("devices", self.devices),
            )
            if values
        ]
        if self.min_approval_rate is not None:
            parts.append(f"approval rate ≥ {self.min_approval_rate}%")
        if self.min_previous_submissions is not None:
            parts.append(f"≥ {self.min_previous_submissions} previous submissions")
        if self.allow_list:
            parts.append(f"{len(self.allow_list)} allowed participant(s) only")
        if self.block_list:
            parts.append(f"{len(self.block_list)} blocked participant(s)")
        return "; ".join(parts)


class StudySettingsError(ChannelSettingsError):
    """Invalid study settings; ``problems`` names each field and what is wrong with it."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _ids(name: str, value: Any, problems: list[str]) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str | int) and str(v).strip() for v in value):
        problems.append(f"{name}: a list of ids")
        return ()
    return tuple(str(v).strip() for v in value)


def _whole(name: str, value: Any, problems: list[str], *, low: int, high: int, optional: bool) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        problems.append(f"{name}: a whole number from {low} to {high}{' or null' if optional else ''}")
        return None
    return value


def study_settings_parse(raw: dict[str, Any], *, defaults: dict[str, str] | None = None) -> StudySettings:
    """The settings of ``raw`` (unknown keys refused); StudySettingsError names every problem."""
    problems: list[str] = []
    known = {f.name for f in fields(StudySettings)}
    problems += [f"{key}: not a Prolific study setting" for key in sorted(set(raw) - known)]
    values: dict[str, Any] = {**(defaults or {}), **{k: v for k, v in raw.items() if k in known}}
    for name in ("name", "description"):
        if not isinstance(values.get(name, ""), str):
            problems.append(f"{name}: text")
    try:
        values["reward"] = Decimal(str(values.get("reward", StudySettings.reward)))
        if (
            not values["reward"].is_finite()
            or values["reward"] <= 0
            or values["reward"] != values["reward"].quantize(Decimal("0.01"))
        ):
            raise InvalidOperation
    except InvalidOperation:
        problems.append('reward: a positive amount with at most 2 decimals, e.g. "1.50"')
        values["reward"] = StudySettings.reward
    minutes = _whole(
        "estimated_minutes", values.get("estimated_minutes", 10), problems, low=1, high=600, optional=False
    )
    values["estimated_minutes"] = minutes or 10
    values["maximum_minutes"] = _whole(
        "maximum_minutes", values.get("maximum_minutes"), problems, low=2, high=1440, optional=True
    )
    if (
        values["maximum_minutes"] is not None
        and minutes
        and values["maximum_minutes"] < 2 + 2 * minutes + 2 * minutes**0.5
    ):
        problems.append("maximum_minutes: at least 2 + 2·estimate + 2·√estimate (Prolific's minimum)")
    if minutes and values["reward"] * 60 / minutes < MIN_HOURLY:
        problems.append(
            f"reward: {values['reward']} for {minutes} minutes is below Prolific's minimum of {MIN_HOURLY} an hour"
        )
    values["min_approval_rate"] = _whole(
        "min_approval_rate", values.get("min_approval_rate", 95), problems, low=0, high=100, optional=True
    )
    values["min_previous_submissions"] = _whole(
        "min_previous_submissions", values.get("min_previous_submissions"), problems, low=0, high=100000, optional=True
    )
    for name in LISTS:
        values[name] = _ids(name, values.get(name, getattr(StudySettings, name)), problems)
    if set(values["devices"]) - DEVICES:
        problems.append(f"devices: some of {', '.join(sorted(DEVICES))}")
    if set(values["allow_list"]) & set(values["block_list"]):
        problems.append("allow_list and block_list: a participant cannot be on both")
    if values.get("rejection_category", StudySettings.rejection_category) not in prolific.REJECTION_CATEGORIES:
        problems.append(f"rejection_category: one of {', '.join(sorted(prolific.REJECTION_CATEGORIES))}")
    values["screen_out_reward"] = _screen_out(values.get("screen_out_reward"), values["reward"], problems)
    values["screen_out_slots"] = _whole(
        "screen_out_slots", values.get("screen_out_slots"), problems, low=1, high=100000, optional=True
    )
    if problems:
        raise StudySettingsError(problems)
    return StudySettings(**values)


def _screen_out(value: Any, reward: Decimal, problems: list[str]) -> Decimal | None:
    """The fixed screen-out payment: an amount above 0 and below the reward (None: off)."""
    if value is None:
        return None
    try:
        amount = Decimal(str(value))
        if not amount.is_finite() or amount <= 0 or amount >= reward or amount != amount.quantize(Decimal("0.01")):
            raise InvalidOperation
    except InvalidOperation:
        problems.append(
            f'screen_out_reward: an amount above 0 and below the reward ({reward}) with at most 2 decimals, e.g. "0.20"'
        )
        return None
    return amount


def default_texts(batch: "Batch") -> dict[str, str]:
    project = batch.project
    return {"name": f"{project.name}: {batch.name}"[:200], "description": (project.instructions or project.name)[:4000]}


def study_settings_for(batch: "Batch") -> StudySettings:
    """The batch's study settings (raises StudySettingsError when they are not valid)."""
    return study_settings_parse(batch.channel_settings or {}, defaults=default_texts(batch))
