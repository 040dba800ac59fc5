"""Importing SCDE's released format: made-up passages (tests/fixtures/scde), good and bad files."""

from __future__ import annotations

import json

import pytest

from annotation.kinds.base import ImportProblem
from annotation.kinds.scde.records import PassageProblem, parse_records
from tests.conftest import FIXTURES

SCDE = FIXTURES / "scde"


def read(name: str) -> str:
    return (SCDE / name).read_text(encoding="utf-8")


def test_labeled_file_gives_pieces_blanks_gold_and_distractors():
    items = parse_records(read("made_up.dev.json"))
    assert [i.external_id for i in items] == ["madeup-dev-1", "madeup-dev-2", "madeup-dev-3"]
    assert [i.line for i in items] == [1, 2, 3]  # passage positions, from 1
    first = items[0].payload
    assert first["blanks"] == [1, 2, 3, 4, 5]
    assert first["pieces"][:3] == [
        {"text": "Mara opened a small bakery on the corner of her street last spring."},
        {"blank": 1},
        {"text": "Every morning she lit the oven at four o'clock."},
    ]
    assert first["gold"] == {"1": 0, "2": 1, "3": 3, "4": 4, "5": 6}
    assert first["distractors"] == [2, 5]
    assert len(first["candidates"]) == 7
    second = items[1].payload
    assert second["pieces"][0] == {"blank": 1}
    assert second["gold"] == {"1": 1, "2": 2, "3": 4} and second["distractors"] == [0, 3]


def test_payload_survives_json_unchanged():
    for item in parse_records(read("made_up.dev.json")):
        assert json.loads(json.dumps(item.payload)) == item.payload


def test_unlabeled_file_imports_without_gold():
    items = parse_records(read("made_up.test.json"))
    assert [i.external_id for i in items] == ["101", "102"]
    assert items[0].payload["eid"] == 101
    assert all("gold" not in i.payload and "distractors" not in i.payload for i in items)
    assert items[1].payload["blanks"] == [1, 2, 3]


def test_null_answer_sequence_is_unlabeled():
    records = json.loads(read("made_up.dev.json"))
    records[0]["answer_sequence"] = None
    assert "gold" not in parse_records(json.dumps(records))[0].payload


def test_bom_and_crlf_are_tolerated():
    text = read("made_up.dev.json")
    variant = "\ufeff" + text.replace("\n", "\r\n")
    assert [i.payload for i in parse_records(variant)] == [i.payload for i in parse_records(text)]


def test_blanks_are_listed_in_passage_order():
    records = json.loads(read("made_up.dev.json"))[1:2]
    records[0]["passage"] = ["<2>", "Text.", "<1>", "<3>"]
    assert parse_records(json.dumps(records))[0].payload["blanks"] == [2, 1, 3]


BAD = [
    ("marker_missing.json", "passage", "blank marker <3> is missing from the passage"),
    ("marker_inside_sentence.json", "passage", "element 5 holds it inside other text"),
    ("marker_twice.json", "passage", "<2> appears twice (elements 4 and 7)"),
    (
        "blanks_not_numbered_from_1.json",
        "passage",
        "<1> is missing from the passage; blanks are numbered 1 to n without gaps (found <2>, <3>, <4>)",
    ),
    ("blank_count_disagrees.json", "number_of_blanks", "is 2 but there are 3 blank markers"),
    ("candidate_count_disagrees.json", "candidate_length", "is 7 but there are 5 candidates"),
    (
        "answer_outside_candidates.json",
        "answer_sequence",
        "points to candidate 5, outside the 5 candidates (ids 0 to 4)",
    ),
    ("same_answer_twice.json", "answer_sequence", "blanks 1 and 3 have the same answer, candidate 2"),
    ("answer_for_missing_blank.json", "answer_sequence", "answers blank 4, but the passage has no blank marker <4>"),
    ("blank_answered_twice.json", "answer_sequence", "blank 2 is answered twice"),
    ("answers_missing.json", "answer_sequence", "answers 2 of 3 blanks (no answer for 3)"),
    ("answer_not_a_pair.json", "answer_sequence", "element 2 must be a pair of integers"),
    ("count_not_an_integer.json", "candidate_length", "must be an integer, got a string"),
    ("eid_wrong_type.json", "eid", "must be an integer or a non-empty string"),
    ("passage_not_a_list.json", "passage", "must be a non-empty list of strings, got a string"),
    ("candidate_not_a_string.json", "candidates", "element 2 must be a non-empty string"),
    ("field_missing.json", "candidates", "missing"),
    ("too_few_candidates.json", "candidates", "2 candidates cannot fill 3 blanks"),
    ("duplicate_eid.json", "eid", "'good-1' is also the eid of passage 1"),
    ("passage_not_an_object.json", None, "expected a JSON object, got a list"),
]


@pytest.mark.parametrize(("name", "field", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_file_is_refused_naming_passage_and_field(name, field, words):
    with pytest.raises(PassageProblem) as caught:
        parse_records(read(f"bad/{name}"))
    problem = caught.value
    assert isinstance(problem, ImportProblem)
    assert (problem.passage, problem.field) == (2, field)
    assert words in problem.message
    assert str(problem).startswith("passage 2 (counting from 1)" + (f", field '{field}'" if field else "") + ": ")


def test_every_bad_fixture_is_covered():
    assert sorted(p.name for p in (SCDE / "bad").glob("*.json")) == sorted(
        [b[0] for b in BAD] + ["invalid_json.json", "not_a_list.json"]
    )


def test_invalid_json_names_the_line():
    with pytest.raises(ImportProblem) as caught:
        parse_records(read("bad/invalid_json.json"))
    assert caught.value.line is not None and "invalid JSON" in str(caught.value)


def test_a_file_that_is_not_a_list_is_refused():
    with pytest.raises(ImportProblem, match="expected a JSON list of passages, got an object"):
        parse_records(read("bad/not_a_list.json"))


def test_empty_answer_sequence_is_refused_not_read_as_unlabeled():
    records = json.loads(read("made_up.dev.json"))
    records[2]["answer_sequence"] = []
    with pytest.raises(PassageProblem, match="answers 0 of 3 blanks"):
        parse_records(json.dumps(records))
