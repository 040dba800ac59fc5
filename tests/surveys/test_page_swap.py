"""One request per saved page: with the page script's header the server answers a save with
the next page itself (the same page a GET shows), not a redirect."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Response
from tests.surveys.test_mturk_pages import entry_url, mturk_batch
from tests.surveys.test_query_counts import MAX_SAVE_QUERIES, MAX_SWAPPED_SAVE_QUERIES, MAX_VIEW_QUERIES
from tests.surveys.test_recam_flow import answer_for, form_fields, invite, join  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db

SWAP = {"HTTP_X_PAGE_SWAP": "1"}


def _without_shown(html: str) -> str:
    """The page without its per-render parts (shown token, CSRF token, one-time messages)."""
    html = re.sub(r'<ul class="messages">.*?</ul>', "", html, flags=re.S)
    return re.sub(r'name="(shown|csrfmiddlewaretoken)" value="[^"]*"', "", html)


def test_a_swapped_save_answers_with_the_page_a_get_would_show(client, invite):  # noqa: F811
    url = join(client, invite)
    html = client.get(url).content.decode()
    pages, first_unit = [], None
    for n in range(2 * 7):
        fields = form_fields(html)
        pages.append(fields["page"])
        response = Response.objects.select_related("item").get(pk=fields["response"])
        first_unit = first_unit or response.assignment_id
        with CaptureQueriesContext(connection) as q:
            answer = client.post(url, {**fields, **answer_for(fields["page"], response.item)}, **SWAP)
        assert answer.status_code == 200, answer.content[:500]
        if n < 2 * 7 - 1:  # the save, then the page read: no redirect, no second request
            assert len(q) <= MAX_SAVE_QUERIES + MAX_VIEW_QUERIES, "\n".join(x["sql"][:120] for x in q.captured_queries)
        if fields["page"] != "difficulty":
            # no item completes: the read and the UPDATE; the page comes from them
            assert len(q) == MAX_SWAPPED_SAVE_QUERIES, "\n".join(x["sql"][:120] for x in q.captured_queries)
        elif n < 2 * 7 - 1:
            # an item completes: the read, whether the batch adjudicates, then the unit's next open
            # item (the assignment is not read again); UPDATEs: the answer, the activity when due
            reads = [x["sql"] for x in q.captured_queries if x["sql"].startswith("SELECT")]
            assert len(reads) == 3 and len(q) <= MAX_SAVE_QUERIES + 1, "\n".join(x[:120] for x in reads)
        html = answer.content.decode()
        assert _without_shown(html) == _without_shown(client.get(url).content.decode())
    assert pages == ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"] * 2
    # the unit's last save says so and shows the first page of the next unit
    assert "Thank you! That set of items is saved." in html
    assert all(r.completed_at for r in Response.objects.filter(assignment_id=first_unit))
    following = Response.objects.get(pk=form_fields(html)["response"])
    assert following.assignment_id != first_unit and form_fields(html)["page"] == "pre"


def test_without_the_header_a_save_still_redirects(client, invite):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    item = Response.objects.get(pk=fields["response"]).item
    answer = client.post(url, {**fields, **answer_for("pre", item)})
    assert answer.status_code == 302 and answer["Location"] == url


def test_a_refused_answer_comes_back_as_the_same_page_with_the_reason(client, invite):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    answer = client.post(url, {**fields, "choice": "9"}, **SWAP)
    assert answer.status_code == 400
    html = answer.content.decode()
    assert form_fields(html)["page"] == "pre" and 'class="msg error"' in html
    assert Response.objects.get(pk=fields["response"]).answers == {}


def test_a_replayed_swapped_save_changes_nothing_and_shows_the_current_page(client, invite):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    item = Response.objects.get(pk=fields["response"]).item
    form = {**fields, **answer_for("pre", item)}
    first = client.post(url, form, **SWAP)
    saved = Response.objects.get(pk=fields["response"])
    second = client.post(url, form, **SWAP)
    assert first.status_code == second.status_code == 200
    assert form_fields(second.content.decode())["page"] == "post"
    again = Response.objects.get(pk=fields["response"])
    assert (again.answers, again.timings) == (saved.answers, saved.timings)


def test_a_locked_answer_changed_is_refused_on_the_next_page(client, invite):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    item = Response.objects.get(pk=fields["response"]).item
    client.post(url, {**fields, **answer_for("pre", item)}, **SWAP)
    other = str((int(answer_for("pre", item)["choice"]) + 1) % 5)
    answer = client.post(url, {**fields, "choice": other}, **SWAP)
    html = answer.content.decode()
    assert answer.status_code == 200 and form_fields(html)["page"] == "post"
    assert "is final and cannot be changed" in html


def test_the_mturk_frame_swaps_too_and_ends_on_the_submit_page(client):
    mturk_batch(items_per_unit=1)
    work = client.get(entry_url("HIT0", "ASSIGNS", "AWORKERS"))["Location"]
    html = client.get(work).content.decode()
    for _ in range(7):
        fields = form_fields(html)
        item = Response.objects.get(pk=fields["response"]).item
        answer = client.post(work, {**fields, **answer_for(fields["page"], item)}, **SWAP)
        assert answer.status_code == 200
        html = answer.content.decode()
    assert "externalSubmit" in html and "page-form" not in html
