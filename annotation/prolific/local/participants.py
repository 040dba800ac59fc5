"""What participants do on the local endpoint: take a place, come back with a code, return,
time out (reference sections 3 and 5). Used by the simulator pages and the admin API.

Statuses: ACTIVE -> AWAITING REVIEW (came back with a code; a code whose actions include
AUTOMATICALLY_APPROVE goes straight to APPROVED; one with REQUEST_RETURN goes to review with the
return requested, and the participant may then return it; one with FIXED_SCREEN_OUT_PAYMENT goes
to SCREENED OUT, paid that reward, while the code's slots last, and the study pauses when they
are used up; an unknown code still goes to review, as on Prolific), ACTIVE | AWAITING REVIEW ->
RETURNED, ACTIVE -> TIMED-OUT (RETURNED, TIMED-OUT, SCREENED OUT and REJECTED free the place). Of the eligibility filters
only the custom allow-list and block-list are enforced (simulated participants have no
demographics); the others are listed by ``GET /filters/``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from annotation.prolific.drafts import CUSTOM_ALLOWLIST, CUSTOM_BLOCKLIST, PLACEHOLDERS

from .errors import ApiError, refused
from .routing import Call, paginate, route
from .store import Store, loads

FILTERS = [
    {
        "filter_id": "current-country-of-residence",
        "title": "Current Country of Residence",
        "type": "select",
        "choices": {"0": "United Kingdom", "1": "United States", "2": "Ireland", "3": "Germany"},
    },
    {
        "filter_id": "first-language",
        "title": "First Language",
        "type": "select",
        "choices": {"0": "English", "1": "German", "2": "French", "3": "Spanish"},
    },
    {"filter_id": "approval_rate", "title": "Approval Rate", "type": "range", "min": 0, "max": 100},
    {
        "filter_id": "approval_numbers",
        "title": "Number of previous submissions",
        "type": "range",
        "min": 0,
        "max": 10000,
    },
    {"filter_id": CUSTOM_ALLOWLIST, "title": "Custom Allowlist", "type": "select", "choices": {}},
    {"filter_id": CUSTOM_BLOCKLIST, "title": "Custom Blocklist", "type": "select", "choices": {}},
]


@route("GET", "filters/", "list_filters")
def filters(call: Call) -> tuple[int, Any]:
    return 200, paginate(call, FILTERS)


def _eligible(data: dict[str, Any], participant_id: str) -> bool:
    for item in data.get("filters") or ():
        values = item.get("selected_values") or []
        if item.get("filter_id") == CUSTOM_ALLOWLIST and participant_id not in values:
            return False
        if item.get("filter_id") == CUSTOM_BLOCKLIST and participant_id in values:
            return False
    return True


def study_url(data: dict[str, Any], participant_id: str, study_id: str, session_id: str) -> str:
    url = data["external_study_url"]
    for placeholder, value in zip(PLACEHOLDERS, (participant_id, study_id, session_id)):
        url = url.replace(placeholder, value)
    return url


def start(store: Store, study_id: str, participant_id: str) -> tuple[sqlite3.Row, str]:
    """The participant takes a place (or resumes their ACTIVE submission): the submission
    and the study URL to open. One submission per participant and study."""
    with store.transaction() as db:
        study = store.study_row(study_id)
        if study is None:
            raise ApiError(404, f"Study {study_id} was not found.")
        data = loads(study["data"])
        mine = db.execute(
            "SELECT * FROM submissions WHERE study_id = ? AND participant_id = ? ORDER BY seq DESC",
            (study_id, participant_id),
        ).fetchone()
        if mine is not None and mine["status"] != "ACTIVE":
            raise refused(f"Participant {participant_id} already took part ({mine['status']}).")
        if mine is None:
            if study["status"] != "ACTIVE":
                raise refused(f"Study {study_id} is {study['status']}, not open to participants.")
            if not _eligible(data, participant_id):
                raise refused(f"Participant {participant_id} is not eligible for this study.")
            if store.places_taken(study_id) >= int(data["total_available_places"]):
                raise refused("All places of this study are taken.")
            submission_id = store.new_id()
            db.execute(
                "INSERT INTO submissions (id, study_id, participant_id, status, started) VALUES (?, ?, ?, 'ACTIVE', ?)",
                (submission_id, study_id, participant_id, store.now()),
            )
            mine = store.submission_row(submission_id)
    return mine, study_url(data, participant_id, study_id, mine["id"])


def active_submission(store: Store, participant_id: str) -> sqlite3.Row | None:
    """The participant's latest ACTIVE submission (where a completion code lands)."""
    return store.row(
        "SELECT * FROM submissions WHERE participant_id = ? AND status = 'ACTIVE' ORDER BY seq DESC", (participant_id,)
    )


def complete(store: Store, submission_id: str, code: str) -> sqlite3.Row:
    """The participant came back with ``code``: its actions decide the new status."""
    with store.transaction() as db:
        row = _submission(store, submission_id, "ACTIVE")
        study = loads(store.one("SELECT data FROM studies WHERE id = ?", (row["study_id"],))["data"])
        entry = next(
            (
                c
                for c in study.get("completion_codes") or ()
                if c.get("code") == code and c.get("actor", "participant") == "participant"
            ),
            None,
        )
        actions = {a.get("action"): a for a in (entry or {}).get("actions") or ()}
        status = "APPROVED" if "AUTOMATICALLY_APPROVE" in actions else "AWAITING REVIEW"
        asked = "REQUEST_RETURN" in actions
        screen_out = actions.get("FIXED_SCREEN_OUT_PAYMENT")
        if screen_out is not None:
            used = store.one(
                "SELECT COUNT(*) FROM submissions WHERE study_id = ? AND status = 'SCREENED OUT'", (row["study_id"],)
            )[0]
            if used < int(screen_out["slots"]):
                status, asked = "SCREENED OUT", False
                paid = int(screen_out["fixed_screen_out_reward"])
                store.set_meta("screened_out_paid", int(store.meta("screened_out_paid") or 0) + paid)
                if used + 1 >= int(screen_out["slots"]):  # Prolific pauses the study when the slots are used
                    db.execute(
                        "UPDATE studies SET status = 'PAUSED' WHERE id = ? AND status = 'ACTIVE'", (row["study_id"],)
                    )
            else:  # no slot left: Prolific leaves it for the researcher, who asks for a return
                asked = True
        db.execute(
            "UPDATE submissions SET status = ?, completed = ?, code = ?, return_requested = ? WHERE id = ?",
            (status, store.now(), code or "NOCODE", int(asked), submission_id),
        )
    return store.one("SELECT * FROM submissions WHERE id = ?", (submission_id,))


def leave(store: Store, submission_id: str, status: str) -> sqlite3.Row:
    """RETURNED (the participant gave up) or TIMED-OUT (past the maximum time)."""
    if status not in ("RETURNED", "TIMED-OUT"):
        raise ValueError("status is RETURNED or TIMED-OUT")
    allowed = ("ACTIVE", "AWAITING REVIEW") if status == "RETURNED" else ("ACTIVE",)
    with store.transaction() as db:
        _submission(store, submission_id, *allowed)
        db.execute("UPDATE submissions SET status = ? WHERE id = ?", (status, submission_id))
    return store.one("SELECT * FROM submissions WHERE id = ?", (submission_id,))


def _submission(store: Store, submission_id: str, *statuses: str) -> sqlite3.Row:
    row = store.submission_row(submission_id)
    if row is None:
        raise ApiError(404, f"Submission {submission_id} was not found.")
    if row["status"] not in statuses:
        raise refused(f"Submission {submission_id} is {row['status']}, not {' or '.join(statuses)}.")
    return row
