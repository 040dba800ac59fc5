"""A model's suggestions in real browsers: the researcher gives a batch a model and turns its
suggestions on in the batch's admin page; with "preselect" one annotator keeps the pre-filled
answer and one changes it, and the report's anchoring table shows one kept, one changed; a
"hint" page names the model's answer beside the question and chooses nothing."""

from __future__ import annotations

import pytest

from annotation.models import Batch, Item, Project
from tests.browser.recam_driver import ReCAMPage
from tests.conftest import data_file
from tests.factories import ModelCallFactory, ModelConnectionFactory

from .researcher import Researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _batch_with_suggestions(researcher: Researcher, project: Project, item: Item, *, name: str, mode: str) -> Batch:
    """A one-item batch for two annotators, its model and suggestions set on its admin page."""
    batch = researcher.create_batch(
        project, name=name, items_per_unit=1, annotators_per_item=2, external_ids=[item.external_id]
    )
    page = researcher.page
    page.goto(researcher.base + f"/admin/annotation/batch/{batch.pk}/change/")
    page.select_option("#id_model", label="gpt-zero-shot")
    page.select_option("#id_suggestions", mode)
    with page.expect_navigation():
        page.click("input[name=_continue]")
    assert "was changed successfully" in researcher.messages(), page.inner_text("#content-main")
    return batch


def _finish(annotator: ReCAMPage) -> None:
    """The item's other pages, answered as the driver does (the gold, spans by mouse)."""
    while annotator.page.locator("#page-form").count():
        annotator.answer_current_page()
    assert annotator.page.locator("#done").is_visible()


def _checked(annotator: ReCAMPage) -> list[str]:
    return annotator.page.eval_on_selector_all("input[name=choice]:checked", "boxes => boxes.map(b => b.value)")


@pytest.fixture
def study(researcher):
    project = researcher.create_project(name="Suggested ReCAM", kind="recam", language="en")
    researcher.import_file(project, data_file("recam", "Task_1_dev.sample.jsonl"))
    model = ModelConnectionFactory(team=project.team, name="gpt-zero-shot")
    items = list(Item.objects.filter(project=project).order_by("id")[:2])
    for item in items:  # the model's answer before reading is wrong, after reading right
        label = item.payload["label"]
        ModelCallFactory(connection=model, item=item, labels={"pre_choice": (label + 1) % 5, "post_choice": label})
    return project, items


def test_one_annotator_keeps_a_preselected_suggestion_and_one_changes_it(researcher, person, study, no_failed_requests):
    project, (item, _other) = study
    batch = _batch_with_suggestions(researcher, project, item, name="suggested", mode="preselect")
    link = researcher.invite_link(batch)
    suggested = str((item.payload["label"] + 1) % 5)
    for keeps in (True, False):
        annotator = ReCAMPage(person())
        annotator.start_from_invite(link)
        assert _checked(annotator) == [suggested]  # the model's answer, chosen for them
        assert annotator.page.locator("#suggestion-note").is_visible()
        note = annotator.page.inner_text(".suggestion")
        assert note.startswith("Pre-filled by a model:") and item.payload[f"option_{suggested}"] in note
        if not keeps:
            annotator.choose("choice", str(item.payload["label"]))
        annotator.submit()
        _finish(annotator)

    researcher.run_quality(project)
    row = researcher.page.locator('#suggestions .suggestions-kept tr[data-field="pre_choice"]')
    assert row.locator("td.kept").inner_text() == "1"
    assert row.locator("td.changed").inner_text() == "1"
    assert "50.0" in row.inner_text()
    no_failed_requests()


def test_a_hint_names_the_models_answer_and_chooses_nothing(researcher, person, study, no_failed_requests):
    project, (_item, other) = study
    batch = _batch_with_suggestions(researcher, project, other, name="hinted", mode="hint")
    annotator = ReCAMPage(person())
    annotator.start_from_invite(researcher.invite_link(batch))
    suggested = (other.payload["label"] + 1) % 5
    hint = annotator.page.locator('.suggestion[data-mode="hint"]')
    assert hint.is_visible()
    assert hint.inner_text() == f"Suggested by a model: {other.payload[f'option_{suggested}']}"
    assert _checked(annotator) == []
    no_failed_requests()
