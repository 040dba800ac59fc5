import pytest

from annotation.kinds.gcrc.sentences import Sentence, sentence_dicts, split_sentences

from .conftest import sample_items


def _texts(text: str) -> list[str]:
    return [sentence.text for sentence in split_sentences(text)]


def test_every_sample_sentence_is_an_exact_span_and_together_they_cover_the_passage(sample_name):
    for item in sample_items(sample_name):
        passage = item["passage"]
        sentences = split_sentences(passage)
        assert sentences, item["id"]
        previous_end = 0
        for sentence in sentences:
            assert passage[sentence.start : sentence.end] == sentence.text
            assert sentence.text.strip() == sentence.text != ""
            assert sentence.start >= previous_end
            assert passage[previous_end : sentence.start].strip() == ""  # only whitespace between
            previous_end = sentence.end
        assert passage[previous_end:].strip() == ""
        joined = "".join(sentence.text for sentence in sentences)
        assert "".join(joined.split()) == "".join(passage.split())


def test_sample_sentences_end_at_a_final_mark_or_a_line_break(sample_name):
    for item in sample_items(sample_name):
        passage = item["passage"]
        for sentence in split_sentences(passage)[:-1]:
            after = passage[sentence.end : sentence.end + 1]
            last = sentence.text.rstrip("”’」』）")[-1]
            assert last in "。！？；…" or after in "\r\n", (item["id"], sentence.text)


def test_the_first_sample_passage_splits_at_semicolons_and_full_stops():
    passage = sample_items("test_public.sample.json")[0]["passage"]
    texts = _texts(passage)
    assert texts[:6] == [
        "北宋山水画中,画面经常或山峦重叠,树木繁盛；",
        "或境地宽远,视野开阔；",
        "或铺天盖地,丰盛错综；",
        "或一望无际,邈远辽阔；",
        "或“巨嶂高壁,多多益壮”；",
        "或“溪桥渔浦,洲渚掩映”。",
    ]
    assert texts[-1] == "但它们尽管有着风格上的重要差异,却又仍然同属于上述“无我之境”的美学范畴。"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("他说：“走吧。”我们就走了。", ["他说：“走吧。”", "我们就走了。"]),
        ("真的吗？！当然！", ["真的吗？！", "当然！"]),
        ("他想了想……没有说话。", ["他想了想……", "没有说话。"]),
        ("《书》云：『天命。』（见前文。）然后", ["《书》云：『天命。』", "（见前文。）", "然后"]),
        ("甲；乙。", ["甲；", "乙。"]),
        ("第一段\n第二段。\r\n\r\n第三段", ["第一段", "第二段。", "第三段"]),
        ("阿瑟?刘易斯提出,直径0．25毫米.", ["阿瑟?刘易斯提出,直径0．25毫米."]),
        ("没有句末标点", ["没有句末标点"]),
        ("", []),
        (" \n\u3000\r\n ", []),
        ("“引号里。”", ["“引号里。”"]),
    ],
)
def test_hand_cases(text, expected):
    assert _texts(text) == expected


def test_offsets_skip_surrounding_whitespace():
    text = "  第一句。 \u3000第二句！\n"
    assert split_sentences(text) == [Sentence("第一句。", 2, 6), Sentence("第二句！", 8, 12)]
    assert sentence_dicts(text)[1] == {"text": "第二句！", "start": 8, "end": 12}
