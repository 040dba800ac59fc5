"""The report's "Model suggestions" section and the exports' suggestion columns, from answers
saved through the annotator's pages of a batch that pre-selects a model's labels."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from quality.exports import export_open
from quality.services.runs import quality_run_create
from tests.factories import ItemFactory, ModelCallFactory, ModelConnectionFactory, ProjectFactory
from tests.surveys.test_recam_flow import answer_for, form_fields

pytestmark = pytest.mark.django_db

MODEL_LABELS = {"pre_choice": 1, "post_choice": 1, "difficulty": "medium"}


def _annotate(client, batch, pre: str) -> None:
    """One annotator through every page of their unit, answering `pre` before reading."""
    client.cookies.clear()
    url = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
    while "page" in (fields := form_fields_or_none(client.get(url).content.decode()) or {}):
        item = Response.objects.get(pk=fields["response"]).item
        answer = {"choice": pre} if fields["page"] == "pre" else answer_for(fields["page"], item)
        assert client.post(url, {**fields, **answer}).status_code == 302


def form_fields_or_none(html: str) -> dict | None:
    return form_fields(html) if 'name="page"' in html else None


@pytest.fixture
def anchored(client):
    """Three annotators of two items: two shown the model's labels pre-selected (one keeps the
    pre-reading choice, one changes it), then one with suggestions off."""
    project = ProjectFactory(settings={"bootstrap_rounds": 0})
    model = ModelConnectionFactory(team=project.team, name="gpt-zero-shot")
    for item in ItemFactory.create_batch(2, project=project):
        ModelCallFactory(connection=model, item=item, labels=MODEL_LABELS)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=3)
    batch.model, batch.suggestions = model, "preselect"
    batch.save(update_fields=["model", "suggestions"])
    _annotate(client, batch, pre="1")
    _annotate(client, batch, pre="3")
    batch.suggestions = "off"
    batch.save(update_fields=["suggestions"])
    _annotate(client, batch, pre="2")
    return project


def test_the_run_measures_kept_suggestions_and_agreement_with_and_without_them(anchored):
    section = quality_run_create(project=anchored).report["suggestions"]
    assert section["model"] == "gpt-zero-shot"
    fields = {f["name"]: f for f in section["fields"]}
    assert set(fields) == {"pre_choice", "post_choice", "difficulty"}
    pre = fields["pre_choice"]
    assert (pre["n_shown"], pre["n_kept"], pre["kept_share"]) == (4, 2, 0.5)
    assert pre["model_shown"]["n"] == 4 and pre["model_shown"]["equal"] == 0.5
    assert pre["model_not_shown"]["n"] == 2 and pre["model_not_shown"]["equal"] == 0.0
    assert pre["among_not_shown"]["reason"] == "no item has two labels"  # one annotator without suggestions
    assert fields["post_choice"]["n_kept"] == 4


def test_the_report_shows_the_anchoring_table_with_reasons_for_missing_figures(anchored, staff_client):
    quality_run_create(project=anchored)
    html = staff_client.get(reverse("quality:report", args=[anchored.pk])).content.decode()
    assert "<h2>Model suggestions</h2>" in html and "gpt-zero-shot" in html
    section = html[html.index('<div class="module" id="suggestions">') :]
    row = section[section.index('<tr data-field="pre_choice"') :]
    row = row[: row.index("</tr>")]
    assert '<td class="num kept">2</td>' in row and '<td class="num changed">2</td>' in row and "50.0" in row
    assert 'title="no item has two labels"' in html  # "— n/a" with its reason


def test_the_exports_carry_each_answers_suggestions(anchored):
    body = b"".join(export_open(project=anchored, dataset="raw", fmt="csv").chunks).decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(body, newline="")))
    assert {"suggestion_model", "pre_choice_suggested", "pre_choice_kept"} <= set(rows[0])
    shown = [(r["pre_choice"], r["pre_choice_suggested"], r["pre_choice_kept"]) for r in rows]
    assert sorted(shown) == sorted([("1", "1", "True")] * 2 + [("3", "1", "False")] * 2 + [("2", "", "")] * 2), shown


def test_a_project_never_shown_a_suggestion_has_neither_the_section_nor_the_columns(client):
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    _annotate(client, batch, pre="1")
    assert "suggestions" not in quality_run_create(project=project).report
    body = b"".join(export_open(project=project, dataset="raw", fmt="csv").chunks).decode("utf-8")
    assert "suggestion_model" not in body.splitlines()[0]
