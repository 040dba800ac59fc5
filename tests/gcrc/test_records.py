import json

import pytest

from annotation.kinds.base import ImportProblem
from annotation.kinds.gcrc.records import parse_records

from .conftest import sample_items, sample_text

PASSAGE = "科学素养是一项基本公民素质。\n公民科学素养可以从三个方面衡量：科学知识、科学方法和科学精神；“这很重要。”"


def labeled_item(**changes) -> dict:
    item = {
        "id": "gcrc_t_1",
        "title": "",
        "passage": PASSAGE,
        "question": "下列理解不正确的一项是",
        "options": ["甲。", "乙。", "丙。", "丁。"],
        "evidences": [["科学素养是一项基本公民素质。"], [], ["“这很重要。”", "不在文中的句子。"], []],
        "reasoning_ability": ["DTL-R", "归纳推理", "CAU-R", "APPREC"],
        "error_type": ["答非所问", "", "", ""],
        "answer": "A",
    }
    item.update(changes)
    return item


def document(*items) -> str:
    return json.dumps({"data": list(items)}, ensure_ascii=False, indent=1)


def test_the_samples_import_with_text_kept_exactly(sample_name):
    released = sample_items(sample_name)
    parsed = parse_records(sample_text(sample_name))
    assert [item.external_id for item in parsed] == [item["id"] for item in released]
    assert [item.line for item in parsed] == list(range(1, len(released) + 1))
    for item, original in zip(parsed, released):
        payload = dict(item.payload)
        sentences = payload.pop("sentences")
        payload.pop("reference", None)
        assert payload == original
        assert all(original["passage"][s["start"] : s["end"]] == s["text"] for s in sentences)


def test_the_adversarial_fields_are_kept_and_the_answer_is_the_reference():
    parsed = parse_records(sample_text("dev_GCRCadvrobust.sample.json"))
    first = parsed[0].payload
    assert first["negative_question"] == "下列关于原文内容的理解和分析，不正确的一项是"
    assert len(first["positive_options"]) == 4 and first["positive_answer"] == "A"
    assert first["reference"] == {"answer": "C"}


def test_unlabeled_items_have_no_reference():
    assert all("reference" not in item.payload for item in parse_records(sample_text("test_public.sample.json")))


def test_a_bom_and_lf_line_ends_give_the_same_items():
    text = sample_text("test_public.sample.json")
    assert "\r\n" in text
    expected = [item.payload for item in parse_records(text)]
    assert [item.payload for item in parse_records("\ufeff" + text)] == expected
    assert [item.payload for item in parse_records(text.replace("\r\n", "\n"))] == expected


def test_labels_are_normalised_to_codes_with_the_original_kept():
    (item,) = parse_records(document(labeled_item()))
    reference = item.payload["reference"]
    assert reference["answer"] == "A"
    assert reference["error_type"] == ["ITQ", "", "", ""]
    assert reference["reasoning_ability"] == ["DTL-R", "IND", "CAUS-R", "APPREC"]
    assert reference["evidences"] == labeled_item()["evidences"]
    assert reference["evidence_sentences"] == [[0], [], [2, None], []]
    assert item.payload["error_type"] == ["答非所问", "", "", ""]  # as released
    assert [s["text"] for s in item.payload["sentences"]] == [
        "科学素养是一项基本公民素质。",
        "公民科学素养可以从三个方面衡量：科学知识、科学方法和科学精神；",
        "“这很重要。”",
    ]


def _problem(text: str) -> ImportProblem:
    with pytest.raises(ImportProblem) as caught:
        parse_records(text)
    return caught.value


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"passage": None}, "passage", "must be a string"),
        ({"question": "  "}, "question", "is empty"),
        ({"id": 7}, "id", "must be a string"),
        ({"options": ["甲", "乙", "丙"]}, "options", "got 3 entries"),
        ({"options": ["甲", "乙", "丙", 4]}, "options", "option D"),
        ({"options": ["甲", "", "丙", "丁"]}, "options", "option B is empty"),
        ({"answer": "E"}, "answer", "one of A, B, C, D"),
        ({"evidences": [[], [], []]}, "evidences", "got 3 entries"),
        ({"evidences": [[], [1], [], []]}, "evidences", "option B"),
        ({"error_type": ["", "", "", "", ""]}, "error_type", "got 5 entries"),
        ({"error_type": ["E", "", "", ""]}, "error_type", "unknown error type 'E'"),
        (
            {"reasoning_ability": ["DTL-R", "DTL-R", "DTL-R", "magic"]},
            "reasoning_ability",
            "option D: unknown reasoning skill",
        ),
    ],
)
def test_bad_items_name_the_item_and_the_field(changes, field, words):
    problem = _problem(document(labeled_item(id="ok"), labeled_item(**changes)))
    assert (problem.line, problem.field) == (2, field)
    assert words in problem.message
    assert 'item 2 of "data", counted from 1' in str(problem)


def test_a_missing_field_is_named():
    item = labeled_item()
    del item["title"]
    problem = _problem(document(item))
    assert (problem.line, problem.field, problem.message.split(" (")[0]) == (1, "title", "missing")


def test_a_duplicate_id_names_both_items():
    problem = _problem(document(labeled_item(), labeled_item(id="b"), labeled_item()))
    assert (problem.line, problem.field) == (3, "id")
    assert "first used by item 1" in problem.message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"data": [}', "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"items": []}', 'no "data" list'),
        ('{"data": {}}', "must be a list"),
        ('{"data": ["x"]}', "expected a JSON object, got str"),
    ],
)
def test_a_broken_file_is_refused(text, words):
    assert words in _problem(text).message
