"""The ReCAM pages through Django's test client: protocol enforced on the server."""

import re
from html import unescape

import pytest
from django.urls import reverse

from annotation.models import Assignment, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


@pytest.fixture
def invite(recam_dev_bytes):
    project = ProjectFactory(kind="recam")
    items_import(project=project, data=recam_dev_bytes, filename="dev.jsonl")
    batch = batch_create(project=project, name="b1", items_per_unit=2, assignments_per_unit=2)
    return invite_link_create(batch=batch)


def join(client, invite):
    response = client.post(reverse("surveys:invite", args=[invite.token]))
    assert response.status_code == 302
    return response["Location"]


def form_fields(html: str) -> dict:
    """The hidden fields of the page's form, as a browser posts them back (the CSRF token aside:
    the test client does not check it)."""
    fields = {name: unescape(value) for name, value in HIDDEN_INPUT.findall(html) if name != "csrfmiddlewaretoken"}
    assert {"response", "page", "shown"} <= set(fields), fields
    return fields


def answer_for(page: str, item) -> dict:
    article = item.payload["article"]
    label = item.payload["label"]
    return {
        "pre": {"choice": str(label)},
        "post": {"choice": str(label)},
        "second": {"choice": "none"},
        "support_span": {"text": article[:40]},
        "relation": {"relation": "summarize"},
        "summary_span": {"text": "  ".join(article[10:60].split(" "))},
        "difficulty": {"difficulty": "medium"},
    }[page]


def test_passage_hidden_until_pre_answer_saved_and_then_locked(client, invite):
    url = join(client, invite)
    html = client.get(url).content.decode()
    fields = form_fields(html)
    response = Response.objects.get(pk=fields["response"])
    article = response.item.payload["article"]
    assert fields["page"] == "pre"
    assert article[:60] not in html
    assert "@placeholder" not in html
    client.post(url, {**fields, "choice": "0"})
    html = client.get(url).content.decode()
    from django.utils.html import escape

    assert escape(article[:60]) in html
    assert form_fields(html)["page"] == "post"
    # the pre-reading answer cannot change afterwards
    client.post(url, {**fields, "choice": "3"}, follow=True)
    response.refresh_from_db()
    assert response.answers["pre"] == {"choice": 0}


def test_whole_unit_double_submit_never_duplicates(client, invite):
    url = join(client, invite)
    for _ in range(2 * 7):
        html = client.get(url).content.decode()
        fields = form_fields(html)
        item = Response.objects.get(pk=fields["response"]).item
        data = {**fields, **answer_for(fields["page"], item)}
        client.post(url, data)
        client.post(url, data)  # double click
    assignment = Assignment.objects.get()
    assert assignment.status == Assignment.Status.SUBMITTED
    responses = list(assignment.responses.all())
    assert len(responses) == 2
    for r in responses:
        assert r.completed_at is not None
        assert set(r.answers) == {"pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"}
        span = r.answers["summary_span"]
        assert r.item.payload["article"][span["start"] : span["end"]] == span["text"]
        timed = [t["seconds"] for t in r.timings.values()]
        assert len(timed) == 7 and None not in timed


def test_wrong_span_gets_clear_message(client, invite):
    url = join(client, invite)
    for _ in range(3):
        fields = form_fields(client.get(url).content.decode())
        item = Response.objects.get(pk=fields["response"]).item
        client.post(url, {**fields, **answer_for(fields["page"], item)})
    fields = form_fields(client.get(url).content.decode())
    assert fields["page"] == "support_span"
    page = client.post(url, {**fields, "text": "words that are not in the passage at all"})
    assert page.status_code == 400
    assert "does not occur in the passage" in page.content.decode()


def test_a_save_that_died_before_submitting_the_assignment_is_finished_by_the_next_view(client, invite):
    """A save writes the answer and then the assignment (two statements, no transaction): if the
    process dies between them, the unit's items are all complete but the assignment is still
    active. The next page view submits it and hands out the next unit, instead of looping."""
    url = join(client, invite)
    client.get(url)  # the first view hands out the first unit
    first = Assignment.objects.get()
    now = first.started_at
    for response in first.responses.select_related("item"):  # every answer saved, nothing else
        answers = {
            page: answer_for(page, response.item)
            for page in ("pre", "post", "second", "support_span", "relation", "summary_span", "difficulty")
        }
        Response.objects.filter(pk=response.pk).update(answers=answers, completed_at=now)
    assert Assignment.objects.get(pk=first.pk).status == Assignment.Status.ACTIVE
    page = client.get(url, follow=True)
    assert page.status_code == 200 and len(page.redirect_chain) == 1
    fresh = Assignment.objects.get(pk=first.pk)
    assert fresh.status == Assignment.Status.SUBMITTED and fresh.submitted_at is not None
    second = Assignment.objects.exclude(pk=first.pk).get()
    assert form_fields(page.content.decode())["response"] in {str(r.pk) for r in second.responses.all()}
