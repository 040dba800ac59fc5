"""A third expert resolves two annotators' disagreements on a GCRC question in a real browser,
in the Chinese interface: sees only the two disputed fields with both annotations side by side,
takes the second annotator's error reason, types their own set of sentences (the box shows its
format; typing in it chooses it; a sentence the article lacks is refused next to the box), and
saves their own set as the final value; the page then says there is nothing more, and a reload
changes nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import AdjudicationTask, FinalLabel
from annotation.services.batches import invite_link_create
from tests.annotation.test_adjudication import annotate, gcrc_batch
from tests.gcrc.test_export import FIRST, SECOND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_adjudicator_decides_the_disputed_fields_in_chinese(live_server, page):
    _project, batch = gcrc_batch()
    annotate(batch, FIRST)
    annotate(batch, SECOND)  # each save commits: the stage's check runs as it does in production
    assert AdjudicationTask.objects.get().fields_in_dispute == ["a_error", "d_evidence"]
    link = invite_link_create(batch=batch, role="adjudicator", label="adjudicator")
    page.goto(live_server.url + reverse("surveys:invite", args=[link.token]))
    page.locator("form button[type=submit]").click()
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.locator("fieldset.adj-field").evaluate_all("els => els.map(e => e.dataset.field)") == [
        "a_error",
        "d_evidence",
    ]
    assert page.locator("fieldset[data-field=a_error] legend").inner_text() == "选项 A：错误原因"
    first = page.locator("fieldset[data-field=a_error] [data-side=first]").inner_text()
    second = page.locator("fieldset[data-field=a_error] [data-side=second]").inner_text()
    assert "标注员 1" in first and "(DTL)" in first and "标注员 2" in second and "(ITQ)" in second
    page.locator("fieldset[data-field=a_error] input[value=second]").check()
    assert "1 至 3" in page.locator("#format_d_evidence").inner_text()
    own = page.locator("input[name=own_d_evidence]")
    own.fill("1, 9")  # typing chooses "my own value"
    assert page.locator("fieldset[data-field=d_evidence] input[value=own]").is_checked()
    page.locator("#decide").click()
    assert page.locator("[data-error=d_evidence]").inner_text() == "文章只有第 1 至 3 句，没有第 9 句。"
    assert AdjudicationTask.objects.get().status == "open"
    page.locator("fieldset[data-field=a_error] input[value=second]").check()
    page.locator("input[name=own_d_evidence]").fill("1")
    page.locator("#decide").click()
    assert "目前没有需要裁定的内容" in page.inner_text("#done")
    page.reload()
    labels = {label.field: (label.how, label.value) for label in FinalLabel.objects.exclude(how="agreed")}
    assert labels == {"a_error": ("adjudicated", "ITQ"), "d_evidence": ("adjudicated", [0])}
    assert AdjudicationTask.objects.get().answers == {"a_error": "ITQ", "d_evidence": [0]}
