"""A Chinese-speaking expert labels a GCRC question in a real browser: taps sentences of the
article to select them, picks skills and error reasons, sees the polarity pre-set, is refused an
invalid page, and saves; on a phone-sized screen, with and without the page's scripts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Item, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.browser.recam_driver import submit_page
from tests.conftest import data_file
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def make_invite():
    project = ProjectFactory(kind="gcrc", language="zh-hans", name="高考阅读理解标注")
    items_import(project=project, data=data_file("gcrc", "dev_GCRCadvrobust.sample.json").read_bytes())
    item = Item.objects.filter(project=project).order_by("id").first()  # “正确的一项”, answer C
    batch = batch_create(project=project, name="browser", items=[item], items_per_unit=1, assignments_per_unit=2)
    return invite_link_create(batch=batch)


def slug(page) -> str:
    return page.get_attribute("#page-form", "data-page")


def tap_sentence(page, index: int) -> None:
    """Tap the sentence's number, part of its label (not the checkbox): the label toggles the box."""
    page.locator(f"label.sentence[data-index='{index}'] .n").click()


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True)
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def test_an_expert_labels_the_four_options_in_the_chinese_interface(live_server, phone):
    page = phone
    invite = make_invite()
    page.goto(live_server.url + reverse("surveys:invite", args=[invite.token]))
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    page.locator("form button[type=submit]").click()
    assert slug(page) == "option_a"
    assert page.locator("#next").inner_text() == "保存并继续"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # nothing wider than a phone
    assert "选项 A" in page.inner_text("#progress")
    assert page.locator(".gcrc-option.is-answer").get_attribute("data-letter") == "C"
    tag = page.locator(".gcrc-option.is-answer .answer-tag")
    assert tag.is_visible() and tag.inner_text() == "答案"

    # polarity: “正确的一项” with answer C, so A is pre-set wrong
    assert page.locator("input[name=wrong]").is_checked()
    # beside the ticked box the empty reason asks for one, never "none: a true statement"
    assert page.locator("select[name=error] option[value='']").inner_text() == "请选择这个错误选项的错误原因。"
    assert "题目要求选出表述正确的一项" in page.inner_text("#polarity")
    tap_sentence(page, 0)
    tap_sentence(page, 2)
    tap_sentence(page, 2)  # a second tap removes it
    tap_sentence(page, 1)
    assert page.locator("input[name=evidence]:checked").evaluate_all("els => els.map(e => e.value)") == ["0", "1"]
    page.locator("input[name=skill][value='DTL-R']").check()
    # invalid: a wrong statement without its error reason is refused, nothing saved
    submit_page(page)
    assert slug(page) == "option_a"
    assert "请选择这个错误选项的错误原因。" in page.inner_text("#error-reason")
    response = Response.objects.get()
    assert "option_a" not in response.answers
    assert page.locator("input[name=evidence]:checked").count() == 2  # the choices survive the refusal
    page.select_option("select[name=error]", "DTL")
    submit_page(page)

    assert slug(page) == "option_b"
    assert page.locator("input[name=wrong]").is_checked()
    tap_sentence(page, 3)
    page.locator("input[name=skill][value='CAUS-R']").check()
    page.select_option("select[name=error]", "CAUS")
    submit_page(page)

    assert slug(page) == "option_c"  # the answer: a true statement, pre-set so
    assert not page.locator("input[name=wrong]").is_checked()
    tap_sentence(page, 4)
    page.locator("input[name=skill][value='IND']").check()
    submit_page(page)

    assert slug(page) == "option_d"
    assert page.locator("input[name=wrong]").is_checked()
    page.select_option("select[name=error]", "ITA")
    page.locator("input[name=wrong]").uncheck()  # the annotator corrects the polarity: the script clears the reason
    assert page.input_value("select[name=error]") == ""
    assert page.locator("select[name=error] option[value='']").inner_text() == "— 无：该选项表述正确 —"
    page.locator("input[name=wrong]").check()
    assert page.locator("select[name=error] option[value='']").inner_text() == "请选择这个错误选项的错误原因。"
    page.locator("input[name=wrong]").uncheck()
    tap_sentence(page, 0)
    page.locator("input[name=skill][value='APPREC']").check()
    submit_page(page)
    assert page.locator("#done").is_visible()

    response.refresh_from_db()
    assert response.answers == {
        "option_a": {"evidence": [0, 1], "skill": "DTL-R", "wrong": True, "error": "DTL"},
        "option_b": {"evidence": [3], "skill": "CAUS-R", "wrong": True, "error": "CAUS"},
        "option_c": {"evidence": [4], "skill": "IND", "wrong": False, "error": ""},
        "option_d": {"evidence": [0], "skill": "APPREC", "wrong": False, "error": ""},
    }
    assert response.completed_at is not None


def test_the_page_works_without_javascript(live_server, browser):
    context = browser.new_context(viewport=PHONE, locale="zh-CN", java_script_enabled=False)
    context.set_default_timeout(20_000)
    page = context.new_page()
    try:
        invite = make_invite()
        page.goto(live_server.url + reverse("surveys:invite", args=[invite.token]))
        with page.expect_navigation():
            page.locator("form button[type=submit]").click()
        tap_sentence(page, 1)
        page.locator("input[name=skill][value='DED']").check()
        page.select_option("select[name=error]", "NAS")
        with page.expect_navigation():
            page.click("#next")
        assert slug(page) == "option_b"
        assert Response.objects.get().answers["option_a"] == {
            "evidence": [1],
            "skill": "DED",
            "wrong": True,
            "error": "NAS",
        }
    finally:
        context.close()
