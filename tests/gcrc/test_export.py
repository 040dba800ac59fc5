"""GCRC's columns, quality summary and released-format export on a hand-checked item: two
annotators who differ on option A's error reason and option D's evidence."""

import json

import pandas as pd
import pytest

from annotation.kinds import get_kind
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.exports.datasets import project_datasets
from quality.services.runs import quality_run_create
from tests.factories import ProjectFactory, save_answer

kind = get_kind("gcrc")
S1, S2, S3 = "甲说了一句话。", "乙回答了。", "丙走了！"
RECORD = {
    "id": "gcrc_hand_1",
    "title": "",
    "passage": f"{S1}{S2}\n{S3}",
    "question": "下列说法正确的一项是",
    "options": ["甲先走了。", "乙作了回答。", "丙没有走。", "丁来了。"],
    "answer": "B",
    "evidences": [[S1], [S2], [S3], [S3]],
    "error_type": ["DTL", "", "TEMP", "ITA"],
    "reasoning_ability": ["DTL-R", "CAUS-R", "DED", "IND"],
}
FIRST = {
    "option_a": {"evidence": [0], "skill": "DTL-R", "wrong": True, "error": "DTL"},
    "option_b": {"evidence": [1], "skill": "CAUS-R", "wrong": False, "error": ""},
    "option_c": {"evidence": [0, 2], "skill": "DED", "wrong": True, "error": "TEMP"},
    "option_d": {"evidence": [2], "skill": "IND", "wrong": True, "error": "ITA"},
}
SECOND = {
    **FIRST,
    "option_a": {**FIRST["option_a"], "error": "ITQ"},
    "option_d": {**FIRST["option_d"], "evidence": [1, 2]},
}
RELEASED_LABELS = {  # what the first annotation is in the released format, written out by hand
    "answer": "B",
    "evidences": [[S1], [S2], [S1, S3], [S3]],
    "error_type": ["DTL", "", "TEMP", "ITA"],
    "reasoning_ability": ["DTL-R", "CAUS-R", "DED", "IND"],
}


def payload() -> dict:
    return kind.parse(json.dumps({"data": [RECORD]}, ensure_ascii=False))[0].payload


def frame() -> pd.DataFrame:
    rows = [
        {
            "response_id": n + 1,
            "annotator_id": n + 10,
            "annotator": f"expert{n + 1}",
            "item_id": 7,
            "completed": True,
            **kind.annotation_row(payload(), answers),
        }
        for n, answers in enumerate([FIRST, SECOND])
    ]
    return pd.DataFrame(rows)


def test_the_columns_of_one_annotation():
    """Sentences numbered as the pages number them (from 1), in the row and in the reference."""
    row = kind.annotation_row(payload(), FIRST)
    assert row["answer"] == "B"
    assert (row["c_evidence"], row["c_evidence_text"], row["c_skill"], row["c_wrong"], row["c_error"]) == (
        [1, 3],
        f"{S1}\n{S3}",
        "DED",
        True,
        "TEMP",
    )
    assert json.loads(row["reference"])["evidence_sentences"] == [[1], [2], [3], [3]]


def test_quality_keeps_both_and_reports_reference_scores_and_agreement():
    outcome = kind.quality(frame(), kind.settings_for({}))
    assert outcome.responses["keep"].tolist() == [True, True]
    summary = outcome.summary
    assert summary["reference_Task1_Acc"] == 1.0
    # option C: 9 predicted characters against 3 gold, all 3 shared: F1 0.5; the second's D:
    # 7 against 3: F1 0.6; every other option 1: (3.5 + 3.1) / 8
    assert summary["reference_Task2_F1"] == pytest.approx(0.825)
    assert summary["reference_Task3_Acc"] == pytest.approx(5 / 6)  # the second's A (ITQ) misses
    # 4 evidence comparisons (D differs), 4 skills, 3 error reasons (A differs): 9 of 11
    assert summary["agreement_items"] == 1 and summary["agreement_overall"] == pytest.approx(9 / 11)
    assert (summary["agreement_evidence"], summary["agreement_skill"], summary["agreement_error"]) == (0.75, 1.0, 2 / 3)
    assert outcome.items.loc[7, "observed_agreement"] == pytest.approx(9 / 11)
    first = outcome.items.loc[7, "annotations"][0]
    assert {k: first[k] for k in RELEASED_LABELS} == RELEASED_LABELS


def test_the_released_export_has_one_row_per_annotation():
    diagnostics = kind.quality(frame(), kind.settings_for({})).items.loc[7].to_dict()
    rows = kind.item_exports()["gcrc_annotations"].row(payload(), diagnostics)
    item = {k: RECORD[k] for k in ("id", "title", "passage", "question", "options")}
    assert rows[0] == {**item, **RELEASED_LABELS, "annotator": "expert1", "annotator_id": 10, "response_id": 1}
    assert rows[1]["error_type"] == ["ITQ", "", "TEMP", "ITA"] and rows[1]["evidences"][3] == [S2, S3]
    released = kind.export_item(payload(), diagnostics)
    assert {k: released[k] for k in RECORD} == RECORD and list(released)[:5] == [
        "id",
        "title",
        "passage",
        "question",
        "options",
    ]


@pytest.mark.django_db
def test_export_through_a_quality_run():
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    items_import(project=project, data=json.dumps({"data": [RECORD]}, ensure_ascii=False).encode())
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    invite = invite_link_create(batch=batch)
    for answers in (FIRST, SECOND):
        annotator = annotator_join_via_invite(invite=invite)
        response = assignment_next(annotator=annotator, batch=batch).responses.get()
        for page, answer in answers.items():
            save_answer(response.pk, page, answer)
    quality_run_create(project=project)
    builder, _ = project_datasets(project)["gcrc_annotations"]
    rows = list(builder(project, None).rows())
    assert [r["evidences"] for r in rows] == [RELEASED_LABELS["evidences"], [[S1], [S2], [S1, S3], [S2, S3]]]
    assert rows[0]["annotator"] and rows[0]["annotator"] != rows[1]["annotator"]
    assert {k: rows[0][k] for k in RELEASED_LABELS} == RELEASED_LABELS
