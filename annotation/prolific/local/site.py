"""The participant simulator: HTML pages standing in for Prolific's participant app.

GET  /participant/                  pick a study and a participant id
GET|POST /participant/start         study_id, participant_id: take a place (or resume),
                                    remember the participant in a cookie, and redirect to
                                    the study URL with the placeholders filled in
GET  /submissions/complete?cc=CODE  Prolific's completion URL: the code lands on the
                                    participant's ACTIVE submission
POST /participant/return            submission_id: the participant returns their submission
                                    (as Prolific's app lets them, e.g. when asked to)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from .errors import ApiError
from .participants import active_submission, complete, leave, start
from .store import Store, loads

COOKIE = "prolific_pid"
PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class Page:
    status: int
    body: str
    headers: list[tuple[str, str]] = field(default_factory=list)


def _page(title: str, body: str, status: int = 200) -> Page:
    return Page(
        status,
        f"<!doctype html><html><head><meta charset='utf-8'><title>"
        f"{html.escape(title)}</title></head><body><h1>{html.escape(title)}</h1>"
        f"{body}</body></html>",
    )


def _error(status: int, message: str) -> Page:
    return _page(
        "Cannot continue", f"<p class='error'>{html.escape(message)}</p><p><a href='/participant/'>Back</a></p>", status
    )


def handle(store: Store, method: str, path: str, params: dict[str, str], participant: str | None) -> Page:
    if path == "/participant/" and method == "GET":
        return _chooser(store)
    if path == "/participant/start" and method in ("GET", "POST"):
        return _start(store, params.get("study_id", ""), params.get("participant_id", ""))
    if path == "/submissions/complete" and method == "GET":
        return _complete(store, params.get("cc", ""), participant)
    if path == "/participant/return" and method == "POST":
        return _return(store, params.get("submission_id", ""), participant)
    return _error(404, f"No page {path}.")


def _study_label(study_id: str, data: str) -> str:
    study = loads(data)
    name, internal = str(study.get("name") or "(no name)"), str(study.get("internal_name") or "")
    return html.escape(f"{name} ({internal}) · {study_id}" if internal else f"{name} · {study_id}")


def _chooser(store: Store) -> Page:
    rows = store.rows("SELECT id, data FROM studies WHERE status = 'ACTIVE' ORDER BY seq")
    # each study by its name (and the researcher's internal name), then its id
    options = "".join(
        f"<option value='{html.escape(r['id'])}'>{_study_label(r['id'], r['data'])}</option>" for r in rows
    )
    form = (
        f"<form method='post' action='/participant/start'>"
        f"<label>Study <select name='study_id'>{options}</select></label> "
        f"<label>Participant id <input name='participant_id' value='{store.new_id()}'>"
        f"</label> <button type='submit'>Take part</button></form>"
    )
    return _page("Local Prolific: take part in a study", form)


def _start(store: Store, study_id: str, participant_id: str) -> Page:
    if not PARTICIPANT_ID.match(participant_id):
        return _error(400, "Give a participant id (letters, digits, - and _).")
    try:
        _, url = start(store, study_id, participant_id)
    except ApiError as exc:
        return _error(exc.status, str(exc.detail))
    return Page(302, "", [("Location", url), ("Set-Cookie", f"{COOKIE}={participant_id}; Path=/; SameSite=Lax")])


def _return(store: Store, submission_id: str, participant: str | None) -> Page:
    row = store.submission_row(submission_id)
    if row is None or row["participant_id"] != participant:
        return _error(404, "No such submission of yours.")
    try:
        row = leave(store, submission_id, "RETURNED")
    except ApiError as exc:
        return _error(exc.status, str(exc.detail))
    return _page(
        "Submission returned",
        f"<p>Submission <code id='submission'>{row['id']}</code>: status "
        f"<strong id='status'>{html.escape(row['status'])}</strong>. Your place is free for somebody else.</p>"
        "<p><a href='/participant/'>Take part in another study</a></p>",
    )


def _complete(store: Store, code: str, participant: str | None) -> Page:
    if not participant:
        return _error(400, "No participant: open the study from /participant/ first.")
    row = active_submission(store, participant)
    if row is None:
        return _error(400, f"Participant {participant} has no active submission.")
    row = complete(store, row["id"], code)
    return _page(
        "Submission received",
        (
            f"<p>Participant <code id='participant'>{html.escape(participant)}</code>, submission "
            f"<code id='submission'>{row['id']}</code>: code "
            f"<code id='code'>{html.escape(row['code'])}</code>, status "
            f"<strong id='status'>{html.escape(row['status'])}</strong>.</p>"
            + (
                "<p id='return-requested'>The researcher asks you to return this submission: it frees your place "
                "and does not count against you.</p>"
                "<form method='post' action='/participant/return'><input type='hidden' name='submission_id' "
                f"value='{row['id']}'><button type='submit' id='return'>Return this submission</button></form>"
                if row["return_requested"] and row["status"] == "AWAITING REVIEW"
                else ""
            )
            + (
                "<p id='screened-out'>You were screened out: you are paid the study's screen-out reward, and "
                "it does not count against you.</p>"
                if row["status"] == "SCREENED OUT"
                else ""
            )
            + "<p><a href='/participant/'>Take part in another study</a></p>"
        ),
    )
