"""SCDE answers written back in the released format's terms."""

from __future__ import annotations

import json

from annotation.kinds.scde.export import answer_sequence, gold_sequence, released_record
from annotation.kinds.scde.records import parse_records
from tests.conftest import FIXTURES

SCDE = FIXTURES / "scde"


def test_answers_become_pairs_in_blank_order():
    assert answer_sequence({"3": 4, "1": 0, "2": 6}) == [[1, 0], [2, 6], [3, 4]]
    assert answer_sequence({1: 2, 2: None}) == [[1, 2]]


def test_released_record_round_trips_the_file():
    for name in ["made_up.dev.json", "made_up.test.json"]:
        records = json.loads((SCDE / name).read_text(encoding="utf-8"))
        items = parse_records((SCDE / name).read_text(encoding="utf-8"))
        assert [released_record(i.payload) for i in items] == records
        # the keys come out in the released order
        assert [list(released_record(i.payload)) for i in items] == [list(r) for r in records]


def test_a_workers_answers_replace_the_gold():
    payload = parse_records((SCDE / "made_up.dev.json").read_text(encoding="utf-8"))[1].payload
    assert gold_sequence(payload) == [[1, 1], [2, 2], [3, 4]]
    record = released_record(payload, answers={"1": 1, "2": 3, "3": 4})
    assert record["answer_sequence"] == [[1, 1], [2, 3], [3, 4]]
    assert record["eid"] == "madeup-dev-2" and record["number_of_blanks"] == 3


def test_unlabeled_passage_has_no_answer_sequence_without_answers():
    payload = parse_records((SCDE / "made_up.test.json").read_text(encoding="utf-8"))[0].payload
    assert gold_sequence(payload) is None and "answer_sequence" not in released_record(payload)
    assert released_record(payload, answers={1: 0, 2: 1, 3: 3})["answer_sequence"] == [[1, 0], [2, 1], [3, 3]]
