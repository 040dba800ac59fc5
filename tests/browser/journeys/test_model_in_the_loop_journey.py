"""The demo's "Run the model" step walked in a real browser, as a researcher does it: connect a
model (the local OpenAI-compatible endpoint, scripted to know the answers), estimate a run, see
its cost before anything is spent, run it; give a batch the model's suggestions; one annotator
keeps the pre-filled answer and one changes it; the report shows the model as one more annotator
and the anchoring table."""

from __future__ import annotations

from decimal import Decimal

import pytest

from annotation.models import Item, ModelRun, Project
from tests.annotation.llm_helpers import admin
from tests.browser.recam_driver import ReCAMPage
from tests.conftest import data_file

from .researcher import Researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def connect_model(researcher: Researcher, base_url: str) -> None:
    """Admin › Model connections › Add: the local endpoint's scripted model, with prices."""
    page = researcher.page
    page.goto(researcher.base + "/admin/annotation/modelconnection/add/")
    page.select_option("#id_team", label=researcher.team.name)
    page.fill("#id_name", "local-zero-shot")
    page.fill("#id_base_url", base_url)
    page.fill("#id_model", "sim-right")
    page.fill("#id_input_price", "1.5")
    page.fill("#id_output_price", "6")
    page.fill("#id_requests_per_minute", "6000")  # a server of one's own: no provider's pace to keep
    with page.expect_navigation():
        page.click("input[name=_save]")
    assert "was added successfully" in researcher.messages(), page.inner_text("#content-main")
    assert "none needed" in page.inner_text("#result_list")  # the key column: no key, never a key's value


def estimate_and_run(researcher: Researcher, project: Project) -> ModelRun:
    """Admin › Model runs › Add makes an estimate; the list's action shows the cost, then runs."""
    page = researcher.page
    page.goto(researcher.base + "/admin/annotation/modelrun/add/")
    page.select_option("#id_project", str(project.pk))
    page.select_option("#id_connection", label="local-zero-shot")
    with page.expect_navigation():
        page.click("input[name=_save]")
    run = ModelRun.objects.get(project=project)
    assert run.status == "estimated" and run.estimated_cost > 0 and run.spent == 0
    page.check(f"input[name=_selected_action][value='{run.pk}']")
    page.select_option("select[name=action]", "run_models")
    with page.expect_navigation():
        page.click("button[name=index]")
    assert Decimal(page.inner_text("#model-run-total")) == run.estimated_cost  # the cost before spending
    assert ModelRun.objects.get(pk=run.pk).status == "estimated"
    with page.expect_navigation():
        page.click("#content-main input[type=submit]")
    assert "is queued" in researcher.messages()
    run.refresh_from_db()
    assert run.status == "done", run.error
    assert f"{run.items_total} / {run.items_total}" in page.inner_text("#result_list")
    return run


def test_a_researcher_runs_the_model_then_annotators_see_its_suggestions(
    researcher, person, local_model, no_failed_requests
):
    # "easy must be correct" off: the annotator who changes the (right) suggestion to a wrong answer
    # on an item they call easy stays in the run, their accuracy on the two items 50 % (above 40 %)
    rules = {"easy_must_be_correct": False}
    project = researcher.create_project(name="ReCAM with a model", kind="recam", language="en", settings=rules)
    researcher.import_file(project, data_file("recam", "Task_1_dev.sample.jsonl"))
    items = list(Item.objects.filter(project=project).order_by("id"))
    truth = {
        item.external_id: {"pre_choice": item.payload["label"], "post_choice": item.payload["label"]} for item in items
    }
    admin(local_model, "POST", "models", {"model": "sim-right", "accuracy": 1.0, "answers": truth})
    connect_model(researcher, local_model.base_url)

    run = estimate_and_run(researcher, project)
    assert run.items_done == len(items) and 0 < run.spent <= run.estimated_cost * Decimal("1.1")

    changed = items[0]
    batch = researcher.create_batch(
        project,
        name="suggested",
        items_per_unit=2,
        annotators_per_item=2,
        external_ids=[changed.external_id, items[1].external_id],
    )
    page = researcher.page
    page.goto(researcher.base + f"/admin/annotation/batch/{batch.pk}/change/")
    page.select_option("#id_model", label="local-zero-shot")
    page.select_option("#id_suggestions", "preselect")
    with page.expect_navigation():
        page.click("input[name=_continue]")
    assert "was changed successfully" in researcher.messages()
    link = researcher.invite_link(batch)

    for changes in (False, True):  # the second annotator changes the suggestion on one item
        annotator = ReCAMPage(person())
        annotator.start_from_invite(link)
        while annotator.page.locator("#page-form").count():
            if annotator.slug == "pre":  # the model reads the article: it suggests after reading
                assert not annotator.page.locator(".suggestion").count()
            if annotator.slug != "post":
                annotator.answer_current_page()
                continue
            item = annotator.response().item
            label = str(item.payload["label"])
            assert annotator.page.locator("#suggestion-note").is_visible()
            chosen = annotator.page.eval_on_selector_all(
                "input[name=choice]:checked", "boxes => [...boxes].map(b => b.value)"
            )
            assert chosen == [label]  # the model's answer, pre-filled
            if changes and item == changed:
                annotator.choose("choice", str((item.payload["label"] + 1) % 5))
            annotator.submit()
        assert annotator.page.locator("#done").is_visible()

    report = researcher.run_quality(project)
    assert "Model predictions" in report and "local-zero-shot" in report
    kept = researcher.page.locator('#suggestions .suggestions-kept tr[data-field="post_choice"]')
    assert kept.locator("td.kept").inner_text() == "3"
    assert kept.locator("td.changed").inner_text() == "1"
    no_failed_requests()
