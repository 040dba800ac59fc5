"""The account: who the token is, its workspaces and their balance, eligibility filters;
and bonuses, which move money and so are set up and paid in two separate calls."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .client import ProlificClient, call
from .entities import Balance, BulkBonus, Me, Workspace

MAX_BONUS_ROWS = 200


def get_me(client: ProlificClient) -> Me:
    """The token's user: the cheapest way to check PROLIFIC_API_TOKEN."""
    return Me.from_api(call(client, "GET", "users/me/", operation="get_me", idempotent=True))


def list_workspaces(client: ProlificClient) -> tuple[Workspace, ...]:
    body = call(client, "GET", "workspaces/", operation="list_workspaces", idempotent=True)
    return tuple(Workspace.from_api(item) for item in body.get("results") or ())


def get_balance(client: ProlificClient, workspace_id: str) -> Balance:
    return Balance.from_api(
        call(client, "GET", f"workspaces/{workspace_id}/balance/", operation="get_balance", idempotent=True)
    )


def list_filters(client: ProlificClient) -> tuple[dict[str, Any], ...]:
    """Prolific's eligibility filters (``filter_id``, ``type``, ``choices``...): resolve
    filter and choice IDs here rather than hard-coding them."""
    body = call(client, "GET", "filters/", operation="list_filters", idempotent=True)
    return tuple(body.get("results") or ())


def bonus_csv(bonuses: Mapping[str, int]) -> str:
    """``csv_bonuses`` from amounts in minor units: Prolific wants major units here
    (``150`` pence -> ``1.50``), unlike everywhere else in the API."""
    rows = []
    for participant_or_submission, minor in bonuses.items():
        if int(minor) <= 0:
            raise ValueError(f"bonus for {participant_or_submission} must be positive")
        rows.append(f"{participant_or_submission},{Decimal(int(minor)) / 100:.2f}")
    return "\n".join(rows)


def set_up_bonuses(client: ProlificClient, study_id: str, bonuses: Mapping[str, int]) -> BulkBonus:
    """Set up (not pay) bonuses of ``{participant or submission id: minor units}``, at most
    200 rows. Not retried after a 5xx: a repeat only makes an unpaid duplicate, but the
    caller should keep the returned id and pay that one."""
    if not 1 <= len(bonuses) <= MAX_BONUS_ROWS:
        raise ValueError(f"a bulk bonus has 1 to {MAX_BONUS_ROWS} rows; split larger ones")
    body = call(
        client,
        "POST",
        "submissions/bonus-payments/",
        operation="set_up_bonuses",
        idempotent=False,
        json={"study_id": study_id, "csv_bonuses": bonus_csv(bonuses)},
    )
    return BulkBonus.from_api(body)


def pay_bonuses(client: ProlificClient, bulk_bonus_id: str) -> None:
    """Pay a bulk bonus. NOT idempotent on Prolific (a second call pays again): record that
    it is being paid before calling, and never call it twice for one id. A 429 (refused before
    any effect) is retried; a 5xx or a lost answer raises ``ProlificOutcomeUnknownError``."""
    call(client, "POST", f"bulk-bonus-payments/{bulk_bonus_id}/pay/", operation="pay_bonuses", idempotent=False)
