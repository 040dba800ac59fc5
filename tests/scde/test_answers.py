"""The server-side check of an annotator's SCDE answers, on a made-up passage."""

from __future__ import annotations

import pytest

from annotation.kinds.scde.answers import AnswerProblem, candidate_label, check_answers
from annotation.kinds.scde.records import parse_records
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def payload():
    """Passage 2 of made_up.dev.json: blanks 1-3, candidates 0-4 (A-E)."""
    return parse_records((FIXTURES / "scde" / "made_up.dev.json").read_text(encoding="utf-8"))[1].payload


def test_complete_answers_pass(payload):
    check = check_answers(payload, {1: 1, 2: 2, 3: 0})
    assert check.ok and check.problems == () and check.choices == {1: 1, 2: 2, 3: 0}


def test_form_strings_are_read_as_numbers(payload):
    assert check_answers(payload, {"1": "1", "2": "2", "3": "4"}).choices == {1: 1, 2: 2, 3: 4}


def test_empty_blanks_are_refused(payload):
    check = check_answers(payload, {"1": "3", "2": "", "3": None})
    assert not check.ok
    assert check.problems == (
        AnswerProblem(2, "Choose a sentence for blank 2."),
        AnswerProblem(3, "Choose a sentence for blank 3."),
    )
    assert check.choices == {1: 3}


def test_a_missing_blank_is_refused(payload):
    assert check_answers(payload, {1: 0, 2: 1}).problems == (AnswerProblem(3, "Choose a sentence for blank 3."),)


def test_a_candidate_used_twice_is_refused(payload):
    check = check_answers(payload, {1: 4, 2: 0, 3: 4})
    assert check.problems == (
        AnswerProblem(3, "Sentence E is already used for blank 1; each sentence can fill only one blank."),
    )


@pytest.mark.parametrize("value", [5, -1, "9", "x", 1.5, True])
def test_ids_outside_the_candidates_are_refused(payload, value):
    check = check_answers(payload, {1: 0, 2: value, 3: 1})
    assert check.problems == (AnswerProblem(2, "Blank 2: choose one of the sentences A to E."),)


def test_a_blank_the_passage_lacks_is_refused(payload):
    check = check_answers(payload, {1: 0, 2: 1, 3: 2, 4: 3})
    assert check.problems == (AnswerProblem(None, "There is no blank 4 in this passage."),)


def test_candidate_labels():
    assert [candidate_label(i) for i in (0, 1, 6, 25, 26)] == ["A", "B", "G", "Z", "27"]
