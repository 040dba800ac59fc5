"""GCRC, the whole study as the paper ran it: two expert annotators per question, each with a link
of their own, and a third who resolves their disagreements, in the Chinese interface.

The researcher imports the unlabeled test questions and the labeled dev questions (answers kept as
the reference), makes a batch of both with the adjudication stage on, and hands out three links.
The pair share their first questions (overlap first), so the adjudicator has work as soon as
both have finished one question, not after the whole batch. The adjudicator takes one side on
some fields and types their own value on another. Then quality (reference scores on the labeled
questions, the pair's agreement), the report, every export (the final labels among them) and the
CCL2022 scorer fed the final labels as the researcher downloads them."""

from __future__ import annotations

import json

import pytest

from annotation.models import AdjudicationTask, Assignment, FinalLabel, Item
from tests.conftest import data_file

from . import annotators
from .checks import NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ZH = "zh-CN"


def decide(page, choices: dict[str, str], own: dict[str, str] | None = None) -> None:
    """On the adjudicator's page: per disputed field, the first's, the second's or an own value."""
    for field, choice in choices.items():
        page.locator(f"fieldset[data-field={field}] input[value={choice}]").check()
    for field, value in (own or {}).items():
        page.locator(f"fieldset[data-field={field}] input[value=own]").check()
        page.locator(f"input[name=own_{field}]").fill(value)
    with page.expect_navigation():
        page.locator("#decide").click()


def disputed(page) -> list[str]:
    return page.locator("fieldset.adj-field").evaluate_all("els => els.map(e => e.dataset.field)")


def test_gcrc_with_two_experts_and_an_adjudicator(researcher, person, no_failed_requests):
    project = researcher.create_project(name="高考阅读理解 pilot", kind="gcrc", language="zh-hans")
    assert "Imported 30 new items" in researcher.import_file(project, data_file("gcrc", "test_public.sample.json"))
    assert "Imported 10 new items" in researcher.import_file(
        project, data_file("gcrc", "dev_GCRCadvrobust.sample.json")
    )
    unlabeled = list(Item.objects.filter(project=project).exclude(payload__has_key="reference").order_by("id")[:2])
    labeled = list(Item.objects.filter(project=project, payload__has_key="reference").order_by("id")[:2])
    batch = researcher.create_batch(
        project,
        name="experts",
        items_per_unit=2,
        annotators_per_item=2,
        external_ids=[item.external_id for item in (labeled[0], unlabeled[0], labeled[1], unlabeled[1])],
    )
    researcher.enable_adjudication(batch)
    links = [researcher.invite_link(batch) for _ in range(2)]
    adjudicator_link = researcher.invite_link(batch, action="Create adjudicator link (one person)")

    pair = [annotators.Annotator(person(locale=ZH), annotators.gcrc, who) for who in (0, 1)]
    for someone, link in zip(pair, links, strict=True):
        someone.start_from_invite(link)
    assert pair[0].current_item() == pair[1].current_item() == labeled[0].external_id  # overlap first

    # each finishes the first question: the adjudicator has it at once
    for someone in pair:
        someone.work(items=1)
    adjudicator = person(locale=ZH)
    adjudicator.goto(adjudicator_link)
    with adjudicator.expect_navigation():
        adjudicator.locator("form button[type=submit]").click()
    assert disputed(adjudicator) == ["a_evidence", "b_skill"]
    sides = adjudicator.locator("fieldset[data-field=b_skill]").inner_text()
    assert "标注员 1" in sides and "标注员 2" in sides
    decide(adjudicator, {"a_evidence": "first", "b_skill": "second"})
    assert "目前没有需要裁定的内容" in adjudicator.inner_text("#done")

    for someone in pair:
        someone.work()
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 4
    adjudicator.reload()
    for _ in range(3):  # the three other questions, each with the same two fields in dispute
        assert disputed(adjudicator) == ["a_evidence", "b_skill"]
        decide(adjudicator, {"b_skill": "first"}, own={"a_evidence": "1"})  # the first sentence, as numbered
    assert "目前没有需要裁定的内容" in adjudicator.inner_text("#done")
    assert not AdjudicationTask.objects.filter(batch=batch, status=AdjudicationTask.Status.OPEN).exists()
    assert not FinalLabel.objects.filter(item__project=project, how="unresolved").exists()

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_STUDY | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 8 and len(downloads["adjudications.csv"].rows) == 4
    assert len(downloads["final_items.jsonl"].rows) == 4
    adjudicated = [row for row in downloads["final.csv"].rows if row["how"] == "adjudicated"]
    assert {row["value"] for row in adjudicated if row["field"] == "a_evidence"} >= {"1"}  # as the page numbers it

    predictions = json.dumps({"data": downloads["final_items.jsonl"].rows}, ensure_ascii=False).encode()
    gold = data_file("gcrc", "dev_GCRCadvrobust.sample.json").read_bytes()
    scores = researcher.score(
        project, "ccl2022", files={"pred": ("final.json", predictions), "gold": ("dev.json", gold)}
    )
    assert scores["questions"] == 10 and scores["missing"] == 8  # the two labeled questions of the batch scored
    no_failed_requests()
