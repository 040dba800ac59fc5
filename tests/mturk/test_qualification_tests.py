"""Issue 27: MTurk's qualification test as an alternative to the in-study comprehension check.
The QuestionForm and AnswerKey are built from plain data and scored as MTurk documents it (one
AnswerScore per exactly matched AnswerOption, PercentageMapping of MaximumSummedScore); the local
endpoint stores a type's Test, shows it on its worker site and grants the score."""

from __future__ import annotations

import pytest

from annotation import mturk
from annotation.mturk.qualification_tests import (
    QuizQuestion,
    answer_key_xml,
    question_form_xml,
    read_question_form,
    score,
)

from .conftest import Browser, make_hit

QUESTIONS = [
    QuizQuestion("many", "May an item have two right answers?", (("no", "No"), ("yes", "Yes"))),
    QuizQuestion(
        "tools", "Which may you use?", (("dict", "A dictionary"), ("web", "The web"), ("ai", "A chatbot")), True
    ),
]
ANSWERS = {"many": ["no"], "tools": ["dict"]}


def test_the_form_reads_back_and_the_key_scores_as_a_percentage():
    form = question_form_xml(title="Instructions check", overview="Read them.\n\nThen answer.", questions=QUESTIONS)
    title, overview, questions = read_question_form(form)
    assert (title, overview, questions) == ("Instructions check", ["Read them.", "Then answer."], QUESTIONS)
    key = answer_key_xml(QUESTIONS, ANSWERS)
    assert score(key, {"many": ["no"], "tools": ["dict"]}) == 100
    assert score(key, {"many": ["no"], "tools": ["dict", "web"]}) == 50  # a multiple choice matches as a set
    assert score(key, {"many": ["yes"]}) == 0
    with pytest.raises(ValueError, match="not a QuestionForm"):
        read_question_form("<AnswerKey/>")


def test_a_worker_takes_the_test_on_the_local_site_and_can_then_accept(mturk_client, server):
    kind = mturk.create_qualification_type(
        mturk_client,
        name="Instructions check",
        description="Answer questions about the instructions.",
        test=question_form_xml(title="Instructions check", overview="Read them.", questions=QUESTIONS),
        answer_key=answer_key_xml(QUESTIONS, ANSWERS),
    )
    stored = mturk_client.get_qualification_type(QualificationTypeId=kind.qualification_type_id)["QualificationType"]
    assert "QuestionForm" in stored["Test"] and "AnswerKey" in stored["AnswerKey"] and stored["IsRequestable"]
    hit = make_hit(
        mturk_client,
        requirements=[mturk.private_requirement(kind.qualification_type_id, at_least=100, actions_guarded="Accept")],
    )
    careless, careful = Browser(server.url), Browser(server.url)
    careless.sign_in("A1CARELESS")
    listing = careless.get("/worker/")
    assert "Take the qualification test" in listing.text and "not qualified" in listing.text
    test_page = careless.get(f"/worker/qualification?typeId={kind.qualification_type_id}")
    assert "May an item have two right answers?" in test_page.text and "Read them." in test_page.text
    scored = careless.post(
        "/worker/qualification", [("typeId", kind.qualification_type_id), ("many", "yes"), ("tools", "dict")]
    )
    assert "Your score: <b id='test-score'>50</b>" in scored.text
    assert careless.post("/worker/accept", {"hitId": hit.hit_id}).status == 403
    again = careless.get(f"/worker/qualification?typeId={kind.qualification_type_id}")
    assert again.status == 409  # one try: no retry delay was set
    careful.sign_in("A1CAREFUL")
    careful.post("/worker/qualification", [("typeId", kind.qualification_type_id), ("many", "no"), ("tools", "dict")])
    accepted = careful.post("/worker/accept", {"hitId": hit.hit_id})
    assert accepted.status == 200 and "/worker/task?assignmentId=" in accepted.url


def test_a_test_without_its_answer_key_is_refused(mturk_client):
    with pytest.raises(mturk.MTurkRequestError, match="AnswerKey"):
        mturk.create_qualification_type(
            mturk_client,
            name="No key",
            description="d",
            test=question_form_xml(title="t", overview="o", questions=QUESTIONS),
            reuse_existing=False,
        )
