"""GCRC and SCDE declare their label fields (agreement, aggregation), read from annotation rows."""

import json

import pandas as pd

from annotation.kinds import get_kind
from quality.stats.agreement import field_agreement


def test_gcrc_fields_are_each_options_skill_error_and_sentences():
    fields = {f.name: f for f in get_kind("gcrc").label_fields()}
    assert set(fields) == {f"{x}_{part}" for x in "abcd" for part in ("skill", "error", "evidence")}
    assert fields["a_evidence"].level == "set" and fields["b_skill"].level == "nominal"
    row = {"a_skill": "DED", "a_error": "", "a_evidence": [0, 3], "b_evidence": []}
    assert fields["a_skill"].value(row) == "DED"
    assert fields["a_error"].value(row) is None  # no error reason: no label, not the label ""
    assert fields["a_evidence"].value(row) == [0, 3] and fields["b_evidence"].value(row) is None


def test_scde_fields_are_the_blanks_and_the_difficulty():
    fields = {f.name: f for f in get_kind("scde").label_fields()}
    assert set(fields) == {"blank_1", "blank_2", "blank_3", "blank_4", "blank_5", "difficulty"}
    assert fields["difficulty"].level == "ordinal" and fields["difficulty"].order[0] == "VeryHard"
    row = {"answer_sequence": json.dumps([[1, 4], [2, 0], [3, 6]]), "difficulty": "Easy"}
    assert [fields[f"blank_{n}"].value(row) for n in range(1, 6)] == [4, 0, 6, None, None]
    assert fields["blank_1"].value({"answer_sequence": None}) is None


def test_scde_blank_agreement_runs_on_rows_of_two_workers():
    rows = [
        ("p1", "w1", [[1, 4], [2, 0]]),
        ("p1", "w2", [[1, 4], [2, 1]]),
        ("p2", "w1", [[1, 2], [2, 3]]),
        ("p2", "w2", [[1, 2], [2, 3]]),
    ]
    field = {f.name: f for f in get_kind("scde").label_fields()}["blank_1"]
    frame = pd.DataFrame(
        [
            {"item": item, "annotator": worker, "value": field.value({"answer_sequence": json.dumps(seq)})}
            for item, worker, seq in rows
        ]
    )
    assert field_agreement(frame, level="nominal").observed.value == 1.0  # both blanks 1 agree
