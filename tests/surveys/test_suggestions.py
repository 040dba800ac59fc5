"""A model's suggestions on the annotator's page (a batch's `suggestions`): shown as a hint or
pre-selected, only for the item handed to this annotator, and recorded with the answer (kept or
changed) by the server, whatever the page posts."""

import re

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from tests.factories import RECAM_PAYLOAD, ItemFactory, ModelCallFactory, ModelConnectionFactory, ProjectFactory
from tests.surveys.test_recam_flow import form_fields

pytestmark = pytest.mark.django_db

CHECKED = re.compile(r'<input[^>]*type="radio"[^>]*>')


def _study(mode: str, *, annotators: int = 1):
    """A ReCAM batch of two items with the model's labels of both, shown as `mode`."""
    project = ProjectFactory()
    first = ItemFactory(project=project, payload={**RECAM_PAYLOAD, "option_2": "chilly"})
    second = ItemFactory(project=project, payload={**RECAM_PAYLOAD, "option_3": "stormy"})
    model = ModelConnectionFactory(team=project.team, name="gpt-zero-shot")
    ModelCallFactory(connection=model, item=first, labels={"pre_choice": 2, "post_choice": 1, "difficulty": "easy"})
    ModelCallFactory(connection=model, item=second, labels={"pre_choice": 3})
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=annotators)
    batch.model, batch.suggestions = model, mode
    batch.save(update_fields=["model", "suggestions"])
    return project, batch, first, second


def _join(client, batch) -> str:
    return client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]


def _checked(html: str) -> list[str]:
    return [re.search(r'value="([^"]*)"', tag).group(1) for tag in CHECKED.findall(html) if " checked" in tag]


def test_a_hint_names_the_models_answer_beside_the_question_and_chooses_nothing(client):
    _project, batch, first, _second = _study("hint")
    html = client.get(_join(client, batch)).content.decode()
    assert Response.objects.get(pk=form_fields(html)["response"]).item == first
    assert "Suggested by a model: chilly" in html
    assert _checked(html) == []
    assert "stormy" not in html  # the other item's suggestion (and its options) never reach this page


def test_preselect_chooses_the_models_answer_with_a_note_that_it_may_be_changed(client):
    _project, batch, _first, _second = _study("preselect")
    html = client.get(_join(client, batch)).content.decode()
    assert _checked(html) == ["2"]
    assert "Pre-filled by a model: chilly. You may change it." in html
    assert 'id="suggestion-note"' in html


def test_off_shows_nothing_and_records_nothing(client):
    _project, batch, _first, _second = _study("off")
    url = _join(client, batch)
    html = client.get(url).content.decode()
    assert "by a model" not in html and _checked(html) == []
    fields = form_fields(html)
    client.post(url, {**fields, "choice": "2"})
    assert Response.objects.get(pk=fields["response"]).suggestions == {}


def test_the_save_records_whether_the_answer_kept_the_suggestion(client):
    _project, batch, _first, _second = _study("preselect", annotators=2)
    records = []
    for choice in ("2", "0"):  # one keeps the pre-selected answer, one changes it
        client.cookies.clear()
        url = _join(client, batch)
        fields = form_fields(client.get(url).content.decode())
        assert client.post(url, {**fields, "choice": choice}).status_code == 302
        records.append(Response.objects.get(pk=fields["response"]).suggestions)
    assert records == [
        {"pre": {"pre_choice": {"model": "gpt-zero-shot", "value": 2, "kept": True}}},
        {"pre": {"pre_choice": {"model": "gpt-zero-shot", "value": 2, "kept": False}}},
    ]


def test_a_posted_claim_about_the_suggestion_is_ignored(client):
    """The page posts no suggestion: what was shown is read again on the server."""
    _project, batch, _first, _second = _study("hint")
    url = _join(client, batch)
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "choice": "0", "suggestions": '{"pre": {}}', "suggestion": "0"})
    record = Response.objects.get(pk=fields["response"]).suggestions
    assert record == {"pre": {"pre_choice": {"model": "gpt-zero-shot", "value": 2, "kept": False}}}


def test_the_next_page_of_a_swapped_save_shows_its_suggestion(client):
    _project, batch, _first, _second = _study("hint")
    url = _join(client, batch)
    fields = form_fields(client.get(url).content.decode())
    page = client.post(url, {**fields, "choice": "1"}, headers={"X-Page-Swap": "1"}).content.decode()
    assert form_fields(page)["page"] == "post"
    assert "Suggested by a model: sunny" in page


def test_another_annotators_response_is_neither_shown_nor_saved(client):
    _project, batch, _first, _second = _study("hint", annotators=2)
    theirs = form_fields(client.get(_join(client, batch)).content.decode())
    client.cookies.clear()
    url = _join(client, batch)
    mine = form_fields(client.get(url).content.decode())
    assert client.post(url, {**mine, "response": theirs["response"], "choice": "2"}).status_code == 404
    assert Response.objects.get(pk=theirs["response"]).suggestions == {}
