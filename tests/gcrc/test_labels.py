import pytest

from annotation.kinds.gcrc.labels import (
    ERROR_CODES,
    ERRORS,
    SKILL_CODES,
    SKILL_LEVELS,
    SKILLS,
    error_code,
    polarity,
    skill_code,
    wrong_from_labels,
)

from .conftest import sample_items

# Read by hand: True where the question asks for the option that is NOT right.
ASKS_FOR_WRONG = {
    "gcrc_4015_6994": False,
    "gcrc_4016_6995": True,
    "gcrc_4017_6996": False,
    "gcrc_4018_6997": False,
    "gcrc_4019_6998": True,
    "gcrc_4020_6999": True,
    "gcrc_4021_7000": True,
    "gcrc_4022_7001": False,
    "gcrc_4023_7002": True,
    "gcrc_4024_7003": False,
    "gcrc_4025_7004": True,
    "gcrc_4026_7005": False,
    "gcrc_4027_7006": True,
    "gcrc_4028_7007": True,
    "gcrc_4028_7008": True,
    "gcrc_4028_7009": False,
    "gcrc_4029_7010": True,
    "gcrc_4030_7011": True,
    "gcrc_4031_7012": False,
    "gcrc_4031_7013": True,
    "gcrc_4032_7014": True,
    "gcrc_4032_7015": False,
    "gcrc_4032_7016": False,
    "gcrc_4033_7017": False,
    "gcrc_4033_7018": True,
    "gcrc_4033_7019": False,
    "gcrc_4034_7020": True,
    "gcrc_4034_7021": True,
    "gcrc_4034_7022": True,
    "gcrc_4035_7023": True,
    "gcrc_4726_7883": False,
    "gcrc_4737_7899": False,
    "gcrc_4744_7908": True,
    "gcrc_4745_7909": False,
    "gcrc_4748_7912": True,
    "gcrc_4751_7915": True,
    "gcrc_4752_7916": True,
    "gcrc_4765_7937": True,
    "gcrc_4771_7944": True,
    "gcrc_4781_7957": True,
}

# The two labeled items published with GCRC: the paper's Figure 1 and the CCL2022 README's example.
LABELED = [
    ("根据材料一,下列理解和分析,符合文意的一项是?", "B", ["SPOT", "", "DTL", "ITA"]),
    ("下列对“我们需要怎样的科学素养”的概括，不正确的一项是", "A", ["ITQ", "", "", ""]),
]


def test_the_eight_skills_and_their_levels_as_the_paper_gives_them():
    assert SKILL_CODES == ("DTL-R", "TEM-SPA", "CO-REF", "DED", "MATH", "CAUS-R", "IND", "APPREC")
    levels = {label.code: label.level for label in SKILLS}
    assert levels == {"DTL-R": 1, "TEM-SPA": 2, "CO-REF": 2, "DED": 2, "MATH": 2, "CAUS-R": 2, "IND": 3, "APPREC": 3}
    assert SKILL_LEVELS[3] == "Global information integration"
    assert {label.code: label.zh for label in SKILLS}["APPREC"] == "鉴赏分析"


def test_the_seven_error_reasons():
    assert ERROR_CODES == ("DTL", "TEMP", "SPOT", "NAS", "CAUS", "ITQ", "ITA")
    assert {label.code: label.zh for label in ERRORS}["ITA"] == "无中生有"
    assert all(label.level is None and label.en for label in ERRORS)


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("IND", "IND"),
        ("归纳推理", "IND"),
        ("CAU-R", "CAUS-R"),
        ("cause-effect comprehension", "CAUS-R"),
        (" DTL-R ", "DTL-R"),
        ("", ""),
    ],
)
def test_skill_spellings_normalise_to_codes(value, code):
    assert skill_code(value) == code


@pytest.mark.parametrize(
    ("value", "code"),
    [("主谓宾关系错误", "SPOT"), ("主谓不一致", "SPOT"), ("细节错误", "DTL"), ("itq", "ITQ"), ("", "")],
)
def test_error_spellings_normalise_to_codes(value, code):
    assert error_code(value) == code


@pytest.mark.parametrize("value", ["E", "DTL-R", "细节"])
def test_unknown_error_reasons_are_refused(value):
    with pytest.raises(KeyError):
        error_code(value)


def test_unknown_skills_are_refused():
    with pytest.raises(KeyError):
        skill_code("DTL")


@pytest.mark.parametrize("name", ["test_public.sample.json", "dev_GCRCadvrobust.sample.json"])
def test_polarity_of_every_sample_question_matches_a_reading_by_hand(name):
    for item in sample_items(name):
        result = polarity(item["question"], item.get("answer", "A"))
        assert result.asks_for_wrong is ASKS_FOR_WRONG[item["id"]], item["question"]
        assert sum(result.wrong) == (1 if result.asks_for_wrong else 3)


def test_the_adversarial_negative_questions_have_the_opposite_polarity():
    for item in sample_items("dev_GCRCadvrobust.sample.json"):
        plain = polarity(item["question"], item["answer"])
        negative = polarity(item["negative_question"], item["negative_answer"])
        assert plain.asks_for_wrong is not negative.asks_for_wrong


@pytest.mark.parametrize(("question", "answer", "error_type"), LABELED)
def test_polarity_agrees_with_the_published_error_labels(question, answer, error_type):
    assert polarity(question, answer).wrong == wrong_from_labels(error_type)


def test_wrong_options_follow_the_answer():
    assert polarity("下列说法正确的一项是", "C").wrong == (True, True, False, True)
    negative = polarity("下列说法不正确的一项是", "C")
    assert negative.wrong == (False, False, True, False) and negative.marker == "不正确"


@pytest.mark.parametrize(
    ("question", "asks_for_wrong"),
    [
        ("下列对“不忘初心”的理解,正确的一项是", False),
        ("对《不能承受的生命之轻》的分析,符合原文意思的一项是", False),
        ("下列表述有误的一项是", True),
        ("下列选项中,不能作为论据的一项是", True),
        ("下列对文章内容的理解,错误的一项是", True),
        ("下列推断不一定正确的一项是", True),
        ("下列说法不够准确的一项是", True),
        ("下列推断未必成立的一项是", True),
        ("下列说法与原文意思相符的一项是", False),
    ],
)
def test_negation_inside_quotes_or_titles_does_not_count(question, asks_for_wrong):
    assert polarity(question, "A").asks_for_wrong is asks_for_wrong


def test_a_bad_answer_letter_is_refused():
    with pytest.raises(ValueError):
        polarity("下列说法正确的一项是", "E")


def test_no_error_labels_gives_none():
    assert wrong_from_labels(["", "", "", ""]) is None
