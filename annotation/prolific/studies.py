"""Studies: create a draft (once), find, read, move through the study states, cost.

Every function takes a ``ProlificClient``, returns dataclasses, and never touches the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .client import ProlificClient, call
from .drafts import StudyDraft
from .entities import Study, StudyCost
from .errors import ProlificUnavailableError, ProlificValidationError

# What each transition leads to (reference section 2; PUBLISH may pass through PUBLISHING).
TARGETS = {"PUBLISH": ("ACTIVE", "PUBLISHING"), "PAUSE": ("PAUSED",), "START": ("ACTIVE",), "STOP": ("COMPLETED",)}


def create_study(client: ProlificClient, draft: StudyDraft) -> Study:
    """Create a draft study. Not retried after a 5xx or a lost answer: a second POST would make
    a second study. Use ``create_study_once`` to create at most one per internal_name."""
    return Study.from_api(
        call(client, "POST", "studies/", operation="create_study", idempotent=False, json=draft.to_api())
    )


def create_study_once(client: ProlificClient, draft: StudyDraft) -> Study:
    """The study named ``draft.internal_name``, created if there is none yet.

    Safe to repeat after a crash or a lost answer: it looks before it creates, and when the
    create's outcome is unknown it looks again before giving up. The internal name must be
    unique to this piece of work (e.g. ``batch-<id>``).
    """
    if not draft.internal_name:
        raise ValueError("create_study_once needs a unique internal_name to find the study by")
    found = find_study(client, internal_name=draft.internal_name)
    if found is not None:
        return found
    try:
        return create_study(client, draft)
    except ProlificUnavailableError:
        found = find_study(client, internal_name=draft.internal_name)
        if found is None:
            raise
        return found


def get_study(client: ProlificClient, study_id: str) -> Study:
    return Study.from_api(call(client, "GET", f"studies/{study_id}/", operation="get_study", idempotent=True))


def iter_studies(client: ProlificClient, *, state: str | None = None, page_size: int = 100) -> Iterator[Study]:
    """Every study of the workspace (``state`` filters, e.g. UNPUBLISHED), page by page."""
    page = 1
    while True:
        params: dict[str, Any] = {"page": page, "page_size": page_size}
        if state:
            params["state"] = state
        body = call(client, "GET", "studies/", operation="list_studies", idempotent=True, params=params)
        for item in body.get("results") or ():
            yield Study.from_api(item)
        if not _next_href(body):
            return
        page += 1


def find_study(client: ProlificClient, *, internal_name: str) -> Study | None:
    """The study with this internal name, if any (the newest listed when several match)."""
    found = [s for s in iter_studies(client) if s.internal_name == internal_name]
    return found[-1] if found else None


def transition_study(client: ProlificClient, study_id: str, action: str) -> Study:
    """Move the study (PUBLISH, PAUSE, START, STOP). Retried on 429/5xx; when a retry is
    refused because the first attempt already took effect, the study in its new state is
    returned. Publishing with a short balance raises ``ProlificInsufficientFundsError``."""
    if action not in TARGETS:
        raise ValueError(f"unknown study action {action!r}; known: {', '.join(TARGETS)}")
    try:
        body = call(
            client,
            "POST",
            f"studies/{study_id}/transition/",
            operation=f"study_{action.lower()}",
            idempotent=True,
            json={"action": action},
        )
    except ProlificValidationError:
        study = get_study(client, study_id)
        if study.status in TARGETS[action]:
            return study
        raise
    return Study.from_api(body)


def publish_study(client: ProlificClient, study_id: str) -> Study:
    return transition_study(client, study_id, "PUBLISH")


def pause_study(client: ProlificClient, study_id: str) -> Study:
    return transition_study(client, study_id, "PAUSE")


def start_study(client: ProlificClient, study_id: str) -> Study:
    """Resume a paused study (or reopen one in AWAITING REVIEW to refill freed places)."""
    return transition_study(client, study_id, "START")


def stop_study(client: ProlificClient, study_id: str) -> Study:
    return transition_study(client, study_id, "STOP")


def update_study(client: ProlificClient, study_id: str, **fields: Any) -> Study:
    """PATCH a study. Once published only internal_name and total_available_places (increase
    only) and a few others may change."""
    return Study.from_api(
        call(client, "PATCH", f"studies/{study_id}/", operation="update_study", idempotent=True, json=fields)
    )


def delete_study(client: ProlificClient, study_id: str) -> None:
    """Delete a draft (unpublished) study."""
    call(client, "DELETE", f"studies/{study_id}/", operation="delete_study", idempotent=True)


def quote_study_cost(client: ProlificClient, *, reward: int, places: int) -> int:
    """Prolific's total (minor units, fees and VAT at the account's rates) before creating."""
    body = call(
        client,
        "POST",
        "study-cost-calculator/",
        operation="study_cost_calculator",
        idempotent=True,
        json={"reward": reward, "total_available_places": places},
    )
    return int(body["total_cost"])


def get_study_cost(client: ProlificClient, study_id: str) -> StudyCost:
    """The projected cost of an existing study (rewards, fees and tax)."""
    return StudyCost.from_api(
        call(
            client,
            "GET",
            f"studies/{study_id}/cost/",
            operation="study_cost",
            idempotent=True,
            params={"is_projected": "true"},
        )
    )


def _next_href(body: Any) -> str | None:
    links = body.get("_links") if isinstance(body, dict) else None
    return ((links or {}).get("next") or {}).get("href")
