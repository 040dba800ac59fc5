"""The local worker site's qualification tests, as worker.mturk.com offers them: a HIT whose
requirement names a qualification type with a Test links to it; the worker answers the
QuestionForm, the AnswerKey scores it, and the score is granted as the qualification's value
(once, unless the type allows a retry after RetryDelayInSeconds).

    GET  /worker/qualification?typeId=   the test
    POST /worker/qualification  (typeId, one field per question)   scored and granted
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

from annotation.mturk.qualification_tests import read_question_form, score

from .store import Store
from .work import WorkerError


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def tests_for(store: Store, worker_id: str) -> list[dict]:
    """The qualification types with a test, with the worker's value where they have one."""
    rows = store.rows(
        "SELECT t.id, t.name, t.description, q.value FROM qualification_types t LEFT JOIN worker_qualifications q "
        "ON q.qualification_type_id = t.id AND q.worker_id = ? WHERE t.test != '' ORDER BY t.created",
        (worker_id,),
    )
    return [dict(row) for row in rows]


def test_link(type_id: str) -> str:
    return "/worker/qualification?" + urlencode({"typeId": type_id})


def _test_row(store: Store, type_id: str):
    row = store.row("SELECT * FROM qualification_types WHERE id = ? AND test != ''", (type_id,))
    if row is None:
        raise WorkerError("This qualification has no test.", 404)
    return row


def _taken(store: Store, row, worker_id: str) -> bool:
    """Whether the worker may not take the test now: taken, and no retry allowed yet."""
    granted = store.row(
        "SELECT granted FROM worker_qualifications WHERE worker_id = ? AND qualification_type_id = ?",
        (worker_id, row["id"]),
    )
    if granted is None:
        return False
    return row["retry_delay"] is None or store.now() < granted["granted"] + row["retry_delay"]


def test_form(store: Store, worker_id: str, type_id: str) -> tuple[str, str]:
    """(title, body) of the test page."""
    row = _test_row(store, type_id)
    if _taken(store, row, worker_id):
        raise WorkerError("You have already taken this qualification test.", 409)
    title, overview, questions = read_question_form(row["test"])
    parts = [f"<h1>{esc(title or row['name'])}</h1>", *(f"<p>{esc(p)}</p>" for p in overview)]
    parts.append(
        f"<form method='post' action='/worker/qualification'><input type='hidden' name='typeId' value='{esc(row['id'])}'>"
    )
    for q in questions:
        kind = "checkbox" if q.multiple else "radio"
        choices = "".join(
            f"<label><input type='{kind}' name='{esc(q.id)}' value='{esc(value)}'> {esc(text)}</label><br>"
            for value, text in q.options
        )
        parts.append(f"<fieldset data-question='{esc(q.id)}'><legend>{esc(q.prompt)}</legend>{choices}</fieldset>")
    parts.append("<button id='submit-test'>Submit the test</button></form>")
    return row["name"], "".join(parts)


def test_submit(store: Store, worker_id: str, form: list[tuple[str, str]]) -> tuple[str, str]:
    """Score the answers and grant the score; (title, body) of the result page."""
    values = dict(form)
    row = _test_row(store, values.get("typeId", ""))
    if _taken(store, row, worker_id):
        raise WorkerError("You have already taken this qualification test.", 409)
    given: dict[str, list[str]] = {}
    for name, value in form:
        if name != "typeId":
            given.setdefault(name, []).append(value)
    points = score(row["answer_key"], given)
    with store.transaction() as db:
        db.execute(
            "INSERT OR REPLACE INTO worker_qualifications VALUES (?, ?, ?, ?)",
            (worker_id, row["id"], points, store.now()),
        )
    body = (
        f"<h1>{esc(row['name'])}</h1><p>Your score: <b id='test-score'>{points}</b>.</p>"
        "<p><a href='/worker/' target='_top'>Back to the HITs</a></p>"
    )
    return row["name"], body
