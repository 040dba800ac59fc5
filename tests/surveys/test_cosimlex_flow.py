"""The CoSimLex pages through Django's test client: page 1 does not leak the pair, page 2
bolds the inflected forms, page 1 is locked once page 2 opens, and text stays exact."""

import re

import pytest
from django.utils.html import escape

from annotation.kinds.cosimlex.records import plain_context
from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.conftest import data_file
from tests.factories import ProjectFactory

from .test_recam_flow import form_fields, join

pytestmark = pytest.mark.django_db


def make_invite(lang: str = "en", *, items_per_unit: int = 2, assignments_per_unit: int = 2):
    project = ProjectFactory(kind="cosimlex", language=lang)
    items_import(project=project, data=data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes())
    batch = batch_create(
        project=project, name="b", items_per_unit=items_per_unit, assignments_per_unit=assignments_per_unit
    )
    return invite_link_create(batch=batch)


def strip_context_and_instructions(html: str, context: str) -> str:
    """The page without the context paragraph and the instructions: what else it says."""
    html = html.replace(escape(plain_context(context)), "")
    return re.sub(r'<details class="instructions">.*?</details>', "", html, flags=re.DOTALL)


@pytest.mark.parametrize("lang", ["en", "hr", "sl", "fi"])
def test_page_one_shows_the_context_unmarked_and_never_names_the_pair(client, lang):
    url = join(client, make_invite(lang))
    html = client.get(url).content.decode()
    fields = form_fields(html)
    assert fields["page"] == "inspired"
    payload = Response.objects.get(pk=fields["response"]).item.payload
    context = payload[f"context{payload['context']}"]
    assert escape(plain_context(context)) in html  # shown exactly, every script intact
    assert "<strong" not in html and "<b>" not in html and 'class="target"' not in html
    rest = strip_context_and_instructions(html, context).lower()
    for word in {
        payload["word1"],
        payload["word2"],
        payload[f"word1_context{payload['context']}"],
        payload[f"word2_context{payload['context']}"],
    }:
        assert not re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", rest), word
    assert payload["pair"].lower() not in html.lower()
    for value in payload["reference"].values():  # reference scores are never shown
        assert len(value) < 3 or value not in rest, value


@pytest.mark.parametrize("lang", ["en", "hr", "sl", "fi"])
def test_page_two_bolds_both_inflected_forms_and_asks_for_0_to_6(client, lang):
    url = join(client, make_invite(lang))
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "word_1": "rijeka", "word_2": "čamac"})
    html = client.get(url).content.decode()
    second = form_fields(html)
    assert second["page"] == "rating" and second["response"] == fields["response"]
    payload = Response.objects.get(pk=fields["response"]).item.payload
    n = payload["context"]
    bold = re.findall(r'<strong class="target">(.*?)</strong>', html)
    assert sorted(bold) == sorted([escape(payload[f"word1_context{n}"]), escape(payload[f"word2_context{n}"])])
    assert [int(v) for v in re.findall(r'name="rating" value="(\d)"', html)] == list(range(7))
    assert escape(payload["word1"]) in html and escape(payload["word2"]) in html


def test_page_one_is_locked_once_page_two_opens_and_saves_are_idempotent(client):
    url = join(client, make_invite())
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "word_1": "river", "word_2": "bank"})
    client.post(url, {**fields, "word_1": "river", "word_2": "bank"})  # double submit: same answer, no change
    changed = client.post(url, {**fields, "word_1": "other", "word_2": "words"}, follow=True)
    assert "final and cannot be changed" in changed.content.decode()
    response = Response.objects.get(pk=fields["response"])
    assert response.answers == {"inspired": {"word_1": "river", "word_2": "bank"}}
    rating = form_fields(client.get(url).content.decode())
    client.post(url, {**rating, "rating": "5"})
    response.refresh_from_db()
    assert response.answers["rating"] == {"rating": 5} and response.completed_at is not None
    assert set(response.timings) == {"inspired", "rating"}


def test_both_words_are_required_and_the_rating_must_be_on_the_scale(client):
    url = join(client, make_invite())
    fields = form_fields(client.get(url).content.decode())
    missing = client.post(url, {**fields, "word_1": "river", "word_2": "  "})
    assert missing.status_code == 400 and "This field is required" in missing.content.decode()
    client.post(url, {**fields, "word_1": "river", "word_2": "bank"})
    rating = form_fields(client.get(url).content.decode())
    off_scale = client.post(url, {**rating, "rating": "7"})
    assert off_scale.status_code == 400
    assert "rating" not in Response.objects.get(pk=fields["response"]).answers


def test_the_rating_page_cannot_be_answered_before_page_one(client):
    url = join(client, make_invite())
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "page": "rating", "rating": "3"}, follow=True)
    assert Response.objects.get(pk=fields["response"]).answers == {}


def test_page_texts_are_translated_into_the_project_language(client):
    url = join(client, make_invite("hr"))
    html = client.get(url).content.decode()
    assert '<html lang="hr"' in html
    assert "Spremi i nastavi" in html  # "Save and continue"
