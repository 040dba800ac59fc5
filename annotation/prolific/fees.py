"""Prolific's fee rules in one place (reference/prolific.md, "Fees and pay rules").

Amounts are integers in minor units (pence/cents) of the workspace currency, as the API uses.
The platform fee is a share of participant pay: 33.3 % for academic/non-profit workspaces,
42.8 % for corporate ones; bonuses carry the same fee. VAT is charged on the fee only (not on
participant pay): 20 % for UK workspaces; none outside the EU VAT regime and none with an EU
VAT number (reverse charge; Prolific's help centre, "What is the impact of adding a VAT number").
Prolific's own quote (``study-cost-calculator``) is the authority before publishing; this is
the offline estimate and the local endpoint's rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

ACADEMIC_FEE_RATE = Decimal("0.333")
CORPORATE_FEE_RATE = Decimal("0.428")
UK_VAT_RATE = Decimal("0.20")


@dataclass(frozen=True)
class Cost:
    """What a study or a bonus takes from the balance, in minor units."""

    rewards: int
    fees: int
    vat: int

    @property
    def total(self) -> int:
        return self.rewards + self.fees + self.vat


def _minor(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def cost(rewards: int, *, fee_rate: Decimal = ACADEMIC_FEE_RATE, vat_rate: Decimal = Decimal(0)) -> Cost:
    """Fee and VAT on ``rewards`` minor units paid to participants (rounded half up)."""
    if rewards < 0:
        raise ValueError("rewards cannot be negative")
    fees = _minor(Decimal(rewards) * Decimal(fee_rate))
    return Cost(rewards=rewards, fees=fees, vat=_minor(Decimal(fees) * Decimal(vat_rate)))


def study_cost(
    reward: int, places: int, *, fee_rate: Decimal = ACADEMIC_FEE_RATE, vat_rate: Decimal = Decimal(0)
) -> Cost:
    """The cost of ``places`` submissions paid ``reward`` each (what publishing reserves)."""
    if reward < 0 or places < 0:
        raise ValueError("reward and places cannot be negative")
    return cost(reward * places, fee_rate=fee_rate, vat_rate=vat_rate)


def vat_rate_for(country_code: str, *, has_vat_number: bool = False) -> Decimal:
    """VAT on Prolific's fee for a workspace billed in ``country_code`` (ISO 3166, e.g. GB).

    UK: 20 % whether or not a VAT number is held. Elsewhere 0 (outside the EU VAT regime, or
    reverse-charged with a VAT number). An EU workspace without a VAT number is not covered by
    the reference: it raises, so a quote is never silently wrong.
    """
    code = country_code.upper()
    if code in ("GB", "UK"):
        return UK_VAT_RATE
    if code in _EU and not has_vat_number:
        raise ValueError(
            "VAT for an EU workspace without a VAT number is not known here; "
            "quote with Prolific's study-cost-calculator"
        )
    return Decimal(0)


_EU = frozenset(
    [
        "AT",
        "BE",
        "BG",
        "HR",
        "CY",
        "CZ",
        "DK",
        "EE",
        "FI",
        "FR",
        "DE",
        "GR",
        "IE",
        "IT",
        "LV",
        "LT",
        "LU",
        "MT",
        "NL",
        "PL",
        "PT",
        "RO",
        "SK",
        "SI",
        "ES",
        "SE",
    ]
)
