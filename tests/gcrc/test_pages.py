"""GCRC's pages through Django's test client, in a Chinese project: the answer page for items
released without one, one page per option, the polarity pre-set, the server's checks."""

import re

import pytest
from django.utils.html import escape

from annotation.kinds import get_kind
from annotation.kinds.gcrc.forms import OPTION_FORMS, AnswerForm
from annotation.models import Item, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory
from tests.surveys.test_recam_flow import form_fields, join

from .conftest import FIXTURES, SAMPLES

kind = get_kind("gcrc")


def make_invite(name: str, *, items: int = 1, annotators: int = 2):
    project = ProjectFactory(kind="gcrc", language="zh-hans", name="GCRC 测试")
    items_import(project=project, data=(FIXTURES / name).read_bytes(), filename=name)
    chosen = list(Item.objects.filter(project=project).order_by("id")[:items])
    batch = batch_create(project=project, name="b", items=chosen, items_per_unit=items, assignments_per_unit=annotators)
    return invite_link_create(batch=batch)


def payload_of(name: str, index: int = 0) -> dict:
    return kind.parse((FIXTURES / name).read_text(encoding="utf-8"))[index].payload


def test_pages_follow_whether_the_item_has_its_answer():
    labeled, unlabeled = payload_of(SAMPLES[1]), payload_of(SAMPLES[0])
    assert [p.slug for p in kind.pages(labeled, {})] == ["option_a", "option_b", "option_c", "option_d"]
    assert [p.slug for p in kind.pages(unlabeled, {})] == ["answer", "option_a", "option_b", "option_c", "option_d"]
    assert kind.suggested_annotators_per_item("zh-hans") == 2


def test_the_wrong_box_is_pre_set_from_the_polarity_and_the_answer():
    labeled = payload_of(SAMPLES[1])  # “正确的一项是”, answer C: A, B and D are wrong
    assert [form(payload=labeled, answers={}).fields["wrong"].initial for form in OPTION_FORMS] == [
        True,
        True,
        False,
        True,
    ]
    unlabeled = payload_of(SAMPLES[0])
    assert AnswerForm({"answer": "E"}, payload=unlabeled, answers={}).is_valid() is False
    chosen = {"answer": {"answer": "B"}}
    assert [form(payload=unlabeled, answers=chosen).fields["wrong"].initial for form in OPTION_FORMS] == [
        True,
        False,
        True,
        True,
    ]


@pytest.mark.parametrize(
    "data, field",
    [
        ({"skill": "DED"}, "evidence"),  # no sentence
        ({"evidence": ["999"], "skill": "DED"}, "evidence"),  # out of range
        ({"evidence": ["-1"], "skill": "DED"}, "evidence"),
        ({"evidence": ["0"], "skill": "NOPE"}, "skill"),  # unknown code
        ({"evidence": ["0"], "skill": "DED", "wrong": "on"}, "error"),  # wrong without a reason
        ({"evidence": ["0"], "skill": "DED", "wrong": "on", "error": "XX"}, "error"),
        ({"evidence": ["0"], "skill": "DED", "error": "DTL"}, "error"),  # a reason for a true one
    ],
)
def test_an_option_page_refuses(data, field):
    form = OPTION_FORMS[0](data, payload=payload_of(SAMPLES[1]), answers={})
    assert not form.is_valid() and field in form.errors


def test_an_option_answer_is_stored_in_codes_and_indexes():
    form = OPTION_FORMS[1](
        {"evidence": ["3", "0", "3"], "skill": "CAUS-R", "wrong": "on", "error": "CAUS"},
        payload=payload_of(SAMPLES[1]),
        answers={},
    )
    assert form.is_valid(), form.errors
    assert form.answer() == {"evidence": [0, 3], "skill": "CAUS-R", "wrong": True, "error": "CAUS"}


@pytest.mark.django_db
def test_a_chinese_annotator_labels_an_item_released_without_its_answer(client):
    url = join(client, make_invite(SAMPLES[0]))
    html = client.get(url).content.decode()
    fields = form_fields(html)
    payload = Response.objects.get(pk=fields["response"]).item.payload
    assert fields["page"] == "answer" and '<html lang="zh-hans">' in html and "保存并继续" in html
    assert escape(payload["question"]) in html and all(escape(o) in html for o in payload["options"])
    assert client.post(url, {**fields, "answer": "B"}).status_code == 302

    html = client.get(url).content.decode()
    fields = form_fields(html)
    assert fields["page"] == "option_a"
    boxes = re.findall(r'<input type="checkbox" name="evidence" value="(\d+)"', html)
    assert boxes == [str(i) for i in range(len(payload["sentences"]))]
    assert re.search(r'<input type="checkbox" name="wrong"[^>]*checked', html)  # “正确的一项”, B: A is wrong
    refused = client.post(url, {**fields, "evidence": ["0"], "skill": "DED", "wrong": "on"})
    assert refused.status_code == 400 and "请选择这个错误选项的错误原因" in refused.content.decode()
    client.post(url, {**fields, "evidence": ["2", "0"], "skill": "DED", "wrong": "on", "error": "ITA"})
    html = client.get(url).content.decode()
    fields = form_fields(html)
    assert fields["page"] == "option_b" and not re.search(r'name="wrong"[^>]*checked', html)
    client.post(url, {**fields, "evidence": ["1"], "skill": "DTL-R"})
    response = Response.objects.get(pk=fields["response"])
    assert response.answers == {
        "answer": {"answer": "B"},
        "option_a": {"evidence": [0, 2], "skill": "DED", "wrong": True, "error": "ITA"},
        "option_b": {"evidence": [1], "skill": "DTL-R", "wrong": False, "error": ""},
    }


def empty_choice(form) -> str:
    return dict(form.fields["error"].choices)[""]


def test_a_ticked_wrong_box_never_sits_beside_none_a_true_statement():
    """The empty error reason reads "none: a true statement" only beside an unticked box: as
    pre-set, and as posted (a refused page shows what was posted)."""
    labeled = payload_of(SAMPLES[1])  # A is pre-set wrong, C true
    preset_wrong, preset_true = (
        OPTION_FORMS[0](payload=labeled, answers={}),
        OPTION_FORMS[2](payload=labeled, answers={}),
    )
    assert empty_choice(preset_wrong) == "Choose the error reason of this wrong statement."
    assert empty_choice(preset_true) == "— none: a true statement —"
    rendered = str(preset_wrong["error"])
    assert '<option value="" selected>Choose the error reason of this wrong statement.</option>' in rendered

    posted_wrong = OPTION_FORMS[2]({"evidence": ["0"], "skill": "DED", "wrong": "on"}, payload=labeled, answers={})
    assert not posted_wrong.is_valid() and "error" in posted_wrong.errors  # the server refuses it too
    assert empty_choice(posted_wrong).startswith("Choose the error reason")
    posted_true = OPTION_FORMS[0]({"evidence": ["0"], "skill": "DED"}, payload=labeled, answers={})
    assert posted_true.is_valid() and empty_choice(posted_true) == "— none: a true statement —"
