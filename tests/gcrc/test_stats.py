"""The scorer and the agreement figures against cases computed by hand (written out below)."""

import pytest

from quality.stats.gcrc import (
    GcrcFormatError,
    OptionLabels,
    char_f1,
    evidence_distance,
    items_by_id,
    score,
    two_annotator_agreement,
)


@pytest.mark.parametrize(
    ("predicted", "gold", "expected"),
    [
        ("科学，知识。", "科学方法", 0.5),  # 科学知识 / 科学方法: 2 common of 4 and 4
        ("甲甲乙", "甲乙乙", 2 / 3),  # a bag of characters: 甲 once and 乙 once in common
        ("a b+c", "abc", 1.0),  # whitespace and + are removed
        ("《甲》", "甲", 0.5),  # eval.py keeps title marks: P = 1/3, R = 1
        ("", "", 1.0),
        ("。“”", "", 1.0),  # punctuation only: both empty
        ("甲", "", 0.0),
        ("甲", "乙", 0.0),
    ],
)
def test_char_f1(predicted, gold, expected):
    assert char_f1(predicted, gold) == pytest.approx(expected)


GOLD = {
    "q1": {
        "id": "q1",
        "answer": "A",
        "evidences": [["甲乙。"], ["丙丁。"], [], ["戊。"]],
        "error_type": ["", "DTL", "ITA", "CAUS"],
    },
    "q2": {"id": "q2", "answer": "B", "evidences": [["己。"], [], [], []], "error_type": ["SPOT", "", "", ""]},
}
PRED = {
    "q1": {
        "id": "q1",
        "answer": "A",
        "evidences": [["甲乙。"], ["丙。"], [], []],
        "error_type": ["", "DTL", "ITQ", "CAUS"],
    }
}


def test_scores_computed_by_hand():
    result = score(PRED, GOLD)
    assert result.answer_accuracy == pytest.approx(1 / 2)  # q1 right, q2 missing
    # q1: 1 + 2/3 (丙 against 丙丁) + 1 (both empty) + 0 (none against 戊); q2's four options 0
    assert result.sf_f1 == pytest.approx((1 + 2 / 3 + 1 + 0) / 8)
    assert result.er_accuracy == pytest.approx(2 / 4)  # q1 B and D right, C wrong, q2 A missing
    assert result.score == pytest.approx((1 / 2 + 1 / 3 + 1 / 2) / 3)
    assert (result.questions, result.sf_options, result.er_options, result.missing) == (2, 8, 4, 1)


def test_a_perfect_prediction_scores_one():
    result = score(GOLD, GOLD)
    assert result.as_dict() == {
        "Task1_Acc": 1.0,
        "Task2_F1": 1.0,
        "Task3_Acc": 1.0,
        "Score": 1.0,
        "questions": 2,
        "sf_options": 8,
        "er_options": 4,
        "missing": 0,
    }


def test_a_short_or_absent_prediction_list_scores_zero_for_those_options():
    pred = {"q1": {"answer": "A", "evidences": [["甲乙。"]], "error_type": "DTL"}}
    result = score(pred, {"q1": GOLD["q1"]})
    assert result.sf_f1 == pytest.approx(1 / 4)
    assert result.er_accuracy == 0.0


def test_gold_with_answers_only_has_no_sf_or_er_score():
    result = score({"q1": {"answer": "C"}}, {"q1": {"answer": "C"}, "q2": {"answer": "D"}})
    assert (result.answer_accuracy, result.sf_f1, result.er_accuracy, result.score) == (0.5, None, None, None)


def test_items_by_id_refuses_what_cannot_be_scored():
    assert list(items_by_id({"data": [{"id": "a"}, {"id": "b"}]}, "GOLD")) == ["a", "b"]
    for document, words in [
        ([], 'a "data" list'),
        ({"data": [{"id": 3}]}, 'item 1 of "data": needs a string "id"'),
        ({"data": [{"id": "a"}, {"id": "a"}]}, "item 2 of \"data\": duplicate id 'a'"),
    ]:
        with pytest.raises(GcrcFormatError, match=words):
            items_by_id(document, "GOLD")


FIRST = [
    OptionLabels(("甲。",), "DTL-R", ""),
    OptionLabels(("乙。", "丙。"), "IND", "DTL"),
    OptionLabels(("丁丁。",), "DED", "ITA"),
    OptionLabels((), "MATH", ""),
]
SECOND = [
    OptionLabels(("甲。",), "DTL-R", ""),
    OptionLabels(("丙。", "乙。"), "IND", "DTL"),
    OptionLabels(("丁戊。",), "IND", "ITQ"),
    OptionLabels((), "MATH", "NAS"),
]


def test_two_annotator_agreement_by_hand():
    figures = two_annotator_agreement(FIRST, SECOND)
    assert (figures.options, figures.error_options) == (4, 3)
    assert figures.evidence == 3 / 4  # the same sets in any order; two empty sets agree
    assert figures.skill == 3 / 4
    assert figures.error == pytest.approx(1 / 3)  # over the 3 options where either gave a reason
    assert figures.overall == pytest.approx(7 / 11)
    assert figures.evidence_f1 == pytest.approx((1 + 1 + 0.5 + 1) / 4)  # 丁丁 against 丁戊: 0.5
    # Cohen's kappa, skill: Ao = 3/4; first DTL-R, IND, DED, MATH each 1/4, second DTL-R 1/4,
    # IND 1/2, MATH 1/4: Ae = 1/16 + 1/8 + 1/16 = 1/4; (3/4 - 1/4) / (1 - 1/4) = 2/3
    assert figures.skill_kappa == pytest.approx(2 / 3)
    # error: Ao = 1/3; only DTL is shared (1/3 * 1/3): Ae = 1/9; (1/3 - 1/9) / (8/9) = 1/4
    assert figures.error_kappa == pytest.approx(1 / 4)
    # MASI alpha over the four sets: option 3 is disjoint (distance 1), the rest agree: Do = 1/4.
    # The 8 sets: {甲}x2, {乙,丙}x2, {丁丁}, {丁戊}, {}x2; ordered pairs at distance 1: all but the
    # 2 ordered pairs inside each equal couple (6 of 56): De = 50/56; alpha = 1 - (1/4)/(50/56) = 0.72
    assert figures.evidence_alpha == pytest.approx(1 - (1 / 4) / (50 / 56))


def test_masi_alpha_with_partial_overlap_by_hand():
    first = [OptionLabels(("x",), "IND", ""), OptionLabels(("x", "y"), "IND", "")]
    second = [OptionLabels(("x",), "IND", ""), OptionLabels(("y",), "IND", "")]
    figures = two_annotator_agreement(first, second)
    # d({x,y},{y}) = 1 - 1/2 * 2/3 = 2/3; Do = (0 + 2/3) / 2 = 1/3; over {x},{x},{x,y},{y}
    # the unordered distances are 0, 2/3, 1, 2/3, 1, 2/3: De = 2 * 4 / 12 = 2/3; alpha = 1/2
    assert figures.evidence_alpha == pytest.approx(0.5)
    assert figures.error is None and figures.error_kappa is None
    assert figures.skill_kappa == 1.0


def test_evidence_distance_of_two_empty_sets_is_zero():
    assert evidence_distance(frozenset(), frozenset()) == 0.0
    assert evidence_distance(frozenset(), frozenset({"a"})) == 1.0


def test_unaligned_annotations_are_refused():
    with pytest.raises(ValueError):
        two_annotator_agreement(FIRST, SECOND[:3])
    with pytest.raises(ValueError):
        two_annotator_agreement([], [])
