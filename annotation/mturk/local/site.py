"""The local endpoint's worker site: a stand-in for worker.mturk.com, enough to run the
whole ExternalQuestion loop offline. Plain HTML, every value escaped, no external assets.

    GET  /worker/                        sign in (a worker id in a cookie), list open HITs
    GET  /worker/preview?hitId=          the task read-only: assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE
    GET  /mturk/preview?groupId=         the same for a HIT group (HIT type), like MTurk's URL
    POST /worker/accept  (hitId)         accept: a new assignment
    GET  /worker/task?assignmentId=      the task in a frame with assignmentId, hitId, workerId,
                                         turkSubmitTo (MTurk's parameter names)
    POST /worker/return  (assignmentId)  give the assignment back
    POST /mturk/externalSubmit           what the task page posts: the answer, then Submitted (the
                                         top window goes back to the HIT list, as on MTurk)
    GET|POST /worker/qualification       a qualification test (tests_site)
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit, urlunsplit

from annotation.mturk.questions import parse_external_question

from . import records, tests_site, work
from .store import Store
from .work import NOT_AVAILABLE, WorkerError

COOKIE = "local_mturk_worker"
#: the one script: the submitted page in the frame sends the top window on, as MTurk does
LEAVE_FRAME = "window.top.location.href = document.getElementById('back').href;"
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; frame-src http: https:; "
    f"script-src 'sha256-{base64.b64encode(hashlib.sha256(LEAVE_FRAME.encode()).digest()).decode()}'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
)
STYLE = """body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{background:#232f3e;color:#fff;padding:.5em 1em;display:flex;gap:1em;align-items:center}
header form{margin-left:auto}main{padding:1em}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.4em;text-align:left}.note{color:#666}
.error{color:#a00}iframe{width:100%;border:1px solid #ccc}form.inline{display:inline}"""


@dataclass
class Page:
    status: int
    body: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def layout(title: str, body: str, worker_id: str | None = None, status: int = 200) -> Page:
    who = (
        (
            f"<span>Worker <b>{esc(worker_id)}</b></span><form method='post' action='/worker/logout'>"
            "<button>Sign out</button></form>"
        )
        if worker_id
        else ""
    )
    text = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{STYLE}</style></head><body><header><a href='/worker/' target='_top' "
        f"style='color:#fff'>Local MTurk</a>{who}</header><main>{body}</main></body></html>"
    )
    return Page(status, text, [("Content-Security-Policy", CSP)])


def redirect(location: str, headers: list[tuple[str, str]] | None = None) -> Page:
    return Page(303, "", [("Location", location), *(headers or [])])


def error_page(exc: WorkerError, worker_id: str | None) -> Page:
    return layout(
        "Error",
        f"<p class='error'>{esc(exc)}</p><p><a href='/worker/' target='_top'>Back to the HITs</a></p>",
        worker_id,
        exc.status,
    )


def frame_url(url: str, params: dict[str, str]) -> str:
    parts = urlsplit(url)
    extra = urlencode(params)
    return urlunsplit(parts._replace(query=f"{parts.query}&{extra}" if parts.query else extra))


def _frame(hit, params: dict[str, str]) -> str:
    try:
        external = parse_external_question(hit["question"])
    except ValueError:
        external = None
    if external is None:
        return (
            "<p class='note'>The local endpoint shows only ExternalQuestion HITs. Question:</p>"
            f"<pre>{esc(hit['question'])}</pre>"
        )
    url, height = external
    size = f"height:{height}px" if height else "height:80vh"
    return f"<iframe src='{esc(frame_url(url, params))}' style='{size}' title='task'></iframe>"


def sign_in(message: str = "") -> Page:
    note = f"<p class='error'>{esc(message)}</p>" if message else ""
    return layout(
        "Sign in",
        f"<h1>Local MTurk worker site</h1>{note}<p class='note'>A local "
        "stand-in for signing in: choose any worker id ('A' then capital letters or "
        "digits).</p><form method='post' action='/worker/login'><label>Worker id "
        "<input name='workerId' required pattern='A[A-Z0-9]{1,63}' value='A1LOCALWORKER'>"
        "</label> <button>Sign in</button></form>",
        status=400 if message else 200,
    )


def hit_list(store: Store, worker_id: str) -> Page:
    rows = []
    for entry in work.open_hits(store, worker_id):
        hit = entry["hit"]
        preview = (
            f"<a href='/worker/preview?{urlencode({'hitId': hit['id']})}'>Preview</a>"
            if entry["preview"]
            else "<span class='note'>not qualified to preview</span>"
        )
        accept = (
            f"<form class='inline' method='post' action='/worker/accept'><input type='hidden'"
            f" name='hitId' value='{esc(hit['id'])}'><button>Accept</button></form>"
            if entry["accept"]
            else "<span class='note'>not qualified</span>"
        )
        rows.append(
            f"<tr><td>{esc(hit['title'])}<div class='note'>{esc(hit['description'])}</div>"
            f"</td><td>${esc(hit['reward'])}</td><td>{entry['available']}</td>"
            f"<td>{preview} {accept}</td></tr>"
        )
    mine = [
        f"<tr><td>{esc(a['title'])}</td><td>{esc(a['status'])}</td><td>"
        + (
            f"<a href='/worker/task?{urlencode({'assignmentId': a['id']})}'>Continue</a>"
            if a["status"] == "Accepted"
            else ""
        )
        + (
            f"<div class='feedback'>Requester's feedback: {esc(a['requester_feedback'])}</div>"
            if a["requester_feedback"]
            else ""
        )
        + "</td></tr>"
        for a in work.worker_assignments(store, worker_id)
    ]
    body = (
        "<h1>HITs</h1><table><tr><th>HIT</th><th>Reward</th><th>Available</th><th></th></tr>"
        + ("".join(rows) or "<tr><td colspan='4' class='note'>No HITs available.</td></tr>")
        + "</table>"
        + _tests_table(store, worker_id)
        + "<h2>Your assignments</h2><table><tr><th>HIT</th><th>Status</th><th></th></tr>"
        + ("".join(mine) or "<tr><td colspan='3' class='note'>None yet.</td></tr>")
        + "</table>"
    )
    return layout("HITs", body, worker_id)


def _tests_table(store: Store, worker_id: str) -> str:
    tests = tests_site.tests_for(store, worker_id)
    if not tests:
        return ""
    rows = "".join(
        f"<tr><td>{esc(t['name'])}<div class='note'>{esc(t['description'])}</div></td><td>"
        + (
            f"your score: {esc(t['value'])}"
            if t["value"] is not None
            else f"<a href='{esc(tests_site.test_link(t['id']))}'>Take the qualification test</a>"
        )
        + "</td></tr>"
        for t in tests
    )
    return f"<h2>Qualification tests</h2><table>{rows}</table>"


def preview(store: Store, worker_id: str, hit_id: str) -> Page:
    hit, rights = work.hit_for_worker(store, hit_id, worker_id)
    if not rights["preview"]:
        raise WorkerError("You do not meet the qualification requirements to preview this HIT.", 403)
    accept = (
        f"<form method='post' action='/worker/accept'><input type='hidden' name='hitId' "
        f"value='{esc(hit['id'])}'><button>Accept this HIT</button></form>"
        if rights["accept"]
        else "<p class='note'>You are not qualified to accept it.</p>"
    )
    frame = _frame(hit, {"assignmentId": NOT_AVAILABLE, "hitId": hit["id"]})
    return layout(
        hit["title"], f"<h1>{esc(hit['title'])}</h1><p>Reward ${esc(hit['reward'])}</p>{accept}{frame}", worker_id
    )


def group_preview(store: Store, worker_id: str, group_id: str) -> Page:
    for entry in work.open_hits(store, worker_id):
        if entry["hit"]["hit_type_id"] == group_id:
            return redirect(f"/worker/preview?{urlencode({'hitId': entry['hit']['id']})}")
    raise WorkerError("There are no more available HITs in this group.", 404)


def task(store: Store, worker_id: str, assignment_id: str, public_url: str) -> Page:
    row = work.in_progress(store, assignment_id, worker_id)
    hit = records.hit_row(store, row["hit_id"])
    params = {"assignmentId": row["id"], "hitId": hit["id"], "workerId": worker_id, "turkSubmitTo": public_url}
    back = (
        f"<form method='post' action='/worker/return'><input type='hidden' name='assignmentId'"
        f" value='{esc(row['id'])}'><button>Return this HIT</button></form>"
    )
    return layout(hit["title"], f"<h1>{esc(hit['title'])}</h1>{back}{_frame(hit, params)}", worker_id)


def external_submit(store: Store, fields: list[tuple[str, str]], worker_id: str | None) -> Page:
    assignment_id = dict(fields).get("assignmentId", "")
    if not assignment_id:
        raise WorkerError("The submission has no assignmentId.", 400)
    work.submit(store, assignment_id, fields, worker_id)
    # as on MTurk, the whole worker page moves on (the frame's HIT page with its Return button
    # is gone): the frame sends the top window to the HIT list
    return layout(
        "Submitted",
        "<h1>Thank you</h1><p>Your work was submitted.</p><p><a id='back' href='/worker/?submitted=1' "
        "target='_top'>Back to the HITs</a></p>"
        f"<script>{LEAVE_FRAME}</script>",
        worker_id,
    )


def handle(
    store: Store,
    method: str,
    path: str,
    query: dict[str, str],
    form: list[tuple[str, str]],
    worker_id: str | None,
    public_url: str,
) -> Page:
    """The page for a worker-site request (``worker_id`` from the cookie, None if signed out)."""
    try:
        return _route(store, method, path, query, form, worker_id, public_url)
    except WorkerError as exc:
        return error_page(exc, worker_id)


def _route(store, method, path, query, form, worker_id, public_url) -> Page:
    values = dict(form)
    if path == "/mturk/externalSubmit" and method in ("GET", "POST"):
        return external_submit(store, form if method == "POST" else list(query.items()), worker_id)
    if path == "/worker/login" and method == "POST":
        chosen = values.get("workerId", "").strip().upper()
        try:
            work.check_worker_id(chosen)
        except WorkerError as exc:
            return sign_in(str(exc))
        store.ensure_worker(chosen)
        return redirect("/worker/", [("Set-Cookie", f"{COOKIE}={chosen}; Path=/; HttpOnly; SameSite=Lax")])
    if path == "/worker/logout" and method == "POST":
        return redirect("/worker/", [("Set-Cookie", f"{COOKIE}=; Path=/; Max-Age=0")])
    if worker_id is None:
        return sign_in() if method == "GET" else redirect("/worker/")
    routes: dict[tuple[str, str], Callable[[], Page]] = {
        ("GET", "/worker/"): lambda: hit_list(store, worker_id),
        ("GET", "/worker/preview"): lambda: preview(store, worker_id, query.get("hitId", "")),
        ("GET", "/mturk/preview"): lambda: group_preview(store, worker_id, query.get("groupId", "")),
        ("POST", "/worker/accept"): lambda: redirect(
            "/worker/task?" + urlencode({"assignmentId": work.accept(store, values.get("hitId", ""), worker_id)})
        ),
        ("GET", "/worker/task"): lambda: task(store, worker_id, query.get("assignmentId", ""), public_url),
        ("POST", "/worker/return"): lambda: _return(store, values.get("assignmentId", ""), worker_id),
        ("GET", "/worker/qualification"): lambda: layout(
            *tests_site.test_form(store, worker_id, query.get("typeId", "")), worker_id
        ),
        ("POST", "/worker/qualification"): lambda: layout(*tests_site.test_submit(store, worker_id, form), worker_id),
    }
    view = routes.get((method, path))
    if view is None:
        raise WorkerError("Page not found.", 404)
    return view()


def _return(store: Store, assignment_id: str, worker_id: str) -> Page:
    work.return_assignment(store, assignment_id, worker_id)
    return redirect("/worker/")
