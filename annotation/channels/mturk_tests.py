"""The batch's comprehension check as MTurk's own qualification test (a HIT setting,
`qualification_test`): the study file's questions become a QuestionForm with its AnswerKey, MTurk
scores each worker's try and grants the percentage right, and the HITs ask for at least
`qualification_test_min_score` to accept. The in-study check is then not asked again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotation.mturk.qualification_tests import QuizQuestion, answer_key_xml, question_form_xml
from annotation.studies import StudyFileError, study_of_text

from .mturk_settings import HitSettingsError

if TYPE_CHECKING:
    from annotation.models import Batch

#: the question types a QuestionForm's selection answer can ask
TEST_TYPES = ("single_choice", "multiple_choice")
TEST_SECONDS = 1800


def test_of(batch: "Batch") -> tuple[list[QuizQuestion], dict[str, list[str]]]:
    """The batch's comprehension check as test questions and right answers; HitSettingsError
    when the study has none or asks what a QuestionForm cannot (only choices)."""
    try:
        check = study_of_text(batch.study).comprehension if batch.study else None
    except StudyFileError as exc:
        raise HitSettingsError([f"qualification_test: the study file: {exc}"]) from None
    if check is None:
        raise HitSettingsError(["qualification_test: the batch's study file has no comprehension check to use"])
    questions, answers = [], {}
    for question in check.questions.page.questions:
        if question.type not in TEST_TYPES:
            raise HitSettingsError(
                [f"qualification_test: {question.id!r} is a {question.type} question; an MTurk test asks choices only"]
            )
        options = tuple(_option(entry, position) for position, entry in enumerate(question.get("options") or []))
        questions.append(
            QuizQuestion(question.id, question.prompt, options, multiple=question.type == "multiple_choice")
        )
        right = check.answers[question.id]
        answers[question.id] = [str(v) for v in (right if isinstance(right, list) else [right])]
    return questions, answers


def _option(entry: Any, position: int) -> tuple[str, str]:
    if isinstance(entry, Mapping):
        value = entry.get("value", position)
        return str(value), str(entry.get("label", value))
    return str(entry), str(entry)


def test_texts(batch: "Batch", instructions: str) -> dict[str, Any]:
    """The CreateQualificationType texts of the batch's test (one type per batch, found by name)."""
    questions, answers = test_of(batch)
    title = f"Instructions check of {batch.project.name}"
    return {
        "name": f"{title} (batch {batch.pk})"[:200],
        "description": "Answer questions about the task's instructions; the HITs ask for a passing score.",
        "test": question_form_xml(title=title, overview=instructions, questions=questions),
        "answer_key": answer_key_xml(questions, answers),
        "test_duration_seconds": TEST_SECONDS,
    }
