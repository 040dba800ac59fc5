"""MTurk's fees (reference/mturk.md): charged on approval, on rewards and bonuses alike.

20 % of the amount, at least $0.01; +20 % of the reward when the HIT has 10 or more
assignments; +5 % for Masters. Shared by the cost estimate and the local endpoint's balance.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def money(value: Decimal | str | int) -> Decimal:
    """``value`` as dollars with two decimals; refuses negatives and fractions of a cent."""
    amount = Decimal(str(value))
    if not amount.is_finite() or amount < 0:
        raise ValueError(f"not an amount of money: {value!r}")
    if amount != amount.quantize(CENT):
        raise ValueError(f"{value!r} has fractions of a cent")
    return amount.quantize(CENT)


def assignment_fee(reward: Decimal | str, *, max_assignments: int, masters: bool = False) -> Decimal:
    rate = Decimal("0.20")
    if max_assignments >= 10:
        rate += Decimal("0.20")
    if masters:
        rate += Decimal("0.05")
    return max(CENT, (money(reward) * rate).quantize(CENT, rounding=ROUND_HALF_UP))


def assignment_cost(reward: Decimal | str, *, max_assignments: int, masters: bool = False) -> Decimal:
    """What approving one assignment takes from the balance: reward + fee."""
    return money(reward) + assignment_fee(reward, max_assignments=max_assignments, masters=masters)


def bonus_fee(amount: Decimal | str) -> Decimal:
    return max(CENT, (money(amount) * Decimal("0.20")).quantize(CENT, rounding=ROUND_HALF_UP))


def bonus_cost(amount: Decimal | str) -> Decimal:
    """What a bonus takes from the balance: amount + fee."""
    return money(amount) + bonus_fee(amount)
