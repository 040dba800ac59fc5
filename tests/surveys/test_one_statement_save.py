"""The save of an item's next page in one statement (PostgreSQL), and every way it hands a save
back to the usual path: the page's claims (answers, item, kind, key) are checked by the database,
so a stale, forged or foreign claim changes nothing and the usual save decides."""
import base64
import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation import item_cache
from annotation.models import Assignment, Response
from annotation.services.next_page import response_save_next_page
from surveys import flow
from tests.surveys.test_recam_flow import answer_for, form_fields, invite, join  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db
needs_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="UPDATE ... FROM ... RETURNING of PostgreSQL")
SWAP = {"HTTP_X_PAGE_SWAP": "1"}


def _token(text: str) -> str:
    """A page-state field as pages carry it (URL-safe base64 of JSON)."""
    return base64.urlsafe_b64encode(text.encode()).decode()


def _at_page(client, url, slug):
    """Answer pages until `slug` is the current one; its form fields and response."""
    while True:
        fields = form_fields(client.get(url).content.decode())
        response = Response.objects.select_related("item").get(pk=fields["response"])
        if fields["page"] == slug:
            return fields, response
        assert client.post(url, {**fields, **answer_for(fields["page"], response.item)}).status_code == 302


def _post(client, url, data, **extra):
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(url, data, **extra)
    return answer, [q["sql"] for q in queries.captured_queries]


@needs_postgres
def test_the_next_page_is_saved_by_one_statement_as_the_usual_save_stores_it(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    before = Response.objects.get(pk=response.pk)
    answer, queries = _post(client, url, {**fields, **answer_for("post", response.item)}, **SWAP)
    assert answer.status_code == 200 and len(queries) == 1 and queries[0].startswith("EXECUTE")
    saved = Response.objects.get(pk=response.pk)
    assert saved.answers == {**before.answers, "post": {"choice": response.item.payload["label"]}}
    assert set(saved.timings) == {"pre", "post"} and saved.timings["pre"] == before.timings["pre"]
    timing = saved.timings["post"]
    assert timing["seconds"] is not None and timing["seconds"] >= 0 and timing["shown_at"] and timing["saved_at"]
    assert saved.completed_at is None
    # the answer is the next page, as a GET shows it
    assert form_fields(answer.content.decode())["page"] == "second"
    assert form_fields(client.get(url).content.decode())["page"] == "second"


@needs_postgres
def test_without_the_swap_header_the_one_statement_save_redirects(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    answer, queries = _post(client, url, {**fields, **answer_for("post", response.item)})
    assert answer.status_code == 302 and answer["Location"] == url and len(queries) == 1


@needs_postgres
def test_an_idle_assignment_notes_its_activity(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    long_ago = timezone.now() - timedelta(minutes=10)
    Assignment.objects.filter(pk=response.assignment_id).update(last_activity_at=long_ago)
    answer, queries = _post(client, url, {**fields, **answer_for("post", response.item)}, **SWAP)
    assert answer.status_code == 200 and len(queries) == 2  # the page, then the activity
    assert Assignment.objects.get(pk=response.assignment_id).last_activity_at > long_ago + timedelta(minutes=9)


@needs_postgres
def test_a_double_submit_is_saved_once(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    data = {**fields, **answer_for("post", response.item)}
    first, one = _post(client, url, data, **SWAP)
    stored = Response.objects.get(pk=response.pk)
    second, usual = _post(client, url, data, **SWAP)
    assert len(one) == 1 and len(usual) > 1  # the claim of the repeat no longer holds: the usual way
    assert first.status_code == second.status_code == 200
    again = Response.objects.get(pk=response.pk)
    assert again.answers == stored.answers and again.timings == stored.timings
    assert form_fields(second.content.decode())["page"] == "second"


@needs_postgres
def test_forged_answers_in_the_page_state_change_nothing(client, invite):  # noqa: F811
    """The page claims another pre-reading answer than the stored one: the statement writes
    nothing, and the usual save validates against the stored answers."""
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    stored = Response.objects.get(pk=response.pk).answers
    state = json.loads(base64.urlsafe_b64decode(fields["state"]))
    assert state["a"] == stored
    state["a"] = {"pre": {"choice": (stored["pre"]["choice"] + 1) % 5}}
    answer, queries = _post(client, url, {**fields, "state": _token(json.dumps(state)), **answer_for("post", response.item)})
    assert answer.status_code == 302 and len(queries) > 1
    saved = Response.objects.get(pk=response.pk)
    assert saved.answers["pre"] == stored["pre"] and "post" in saved.answers


@needs_postgres
def test_another_annotators_page_state_reaches_nothing(client, invite):  # noqa: F811
    from django.test import Client

    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    intruder = Client()
    other_url = join(intruder, invite)
    intruder.get(other_url)
    answer, _ = _post(intruder, other_url, {**fields, **answer_for("post", response.item)})
    assert answer.status_code == 404
    assert "post" not in Response.objects.get(pk=response.pk).answers


@needs_postgres
def test_a_stale_copy_of_the_item_sends_the_save_the_usual_way(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    item = item_cache.recall(response.item_id)
    assert item is not None
    item.created_at = item.created_at - timedelta(seconds=1)  # as if another item had had this id
    item_cache.remember(item)
    answer, queries = _post(client, url, {**fields, **answer_for("post", response.item)})
    assert answer.status_code == 302 and len(queries) > 1
    assert Response.objects.get(pk=response.pk).answers["post"] == {"choice": response.item.payload["label"]}


@needs_postgres
def test_an_item_this_process_has_not_rendered_is_saved_the_usual_way(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    item_cache.forget_all()
    answer, queries = _post(client, url, {**fields, **answer_for("post", response.item)})
    assert answer.status_code == 302 and len(queries) > 1
    assert "post" in Response.objects.get(pk=response.pk).answers


@needs_postgres
@pytest.mark.parametrize("state", ["", "junk!", "é", _token("[1, 2]"), _token('{"r": 1}'), _token("{"),
                                   _token('{"r": "1", "i": 1, "k": "recam", "a": {}}')])
def test_a_missing_or_malformed_page_state_is_saved_the_usual_way(client, invite, state):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    answer, queries = _post(client, url, {**fields, "state": state, **answer_for("post", response.item)})
    assert answer.status_code == 302 and len(queries) > 1
    assert "post" in Response.objects.get(pk=response.pk).answers


@needs_postgres
def test_a_released_assignment_is_refused_as_before(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    Assignment.objects.filter(pk=response.assignment_id).update(status=Assignment.Status.APPROVED)
    answer = client.post(url, {**fields, **answer_for("post", response.item)}, follow=True)
    assert "can no longer change" in answer.content.decode()
    assert "post" not in Response.objects.get(pk=response.pk).answers


@needs_postgres
def test_an_invalid_answer_is_shown_by_the_usual_save(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "support_span")
    answer = client.post(url, {**fields, "text": "words that are not in the passage at all"}, **SWAP)
    assert answer.status_code == 400 and "does not occur in the passage" in answer.content.decode()
    assert "support_span" not in Response.objects.get(pk=response.pk).answers


@needs_postgres
def test_the_service_leaves_every_other_case_to_the_usual_save(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _at_page(client, url, "post")
    key = url.rstrip("/").rsplit("/", 1)[1]
    answers, item = response.answers, item_cache.recall(response.item_id)

    def save(**overrides):
        call = dict(access_key=key, response_id=response.pk, item=item, kind_slug="recam", answers_before=answers,
                    page_slug="post", answer={"choice": 1}, shown_at=None)
        return response_save_next_page(**{**call, **overrides})

    with CaptureQueriesContext(connection) as queries:
        assert save(page_slug="pre") is None  # answered already
        assert save(page_slug="second") is None  # not the next page
    assert not queries.captured_queries  # decided without the database
    assert save(page_slug="difficulty", answers_before={p: {} for p in (
        "pre", "post", "second", "support_span", "relation", "summary_span")}) is None  # answers that are not stored
    assert save(access_key="nobody") is None
    assert save(kind_slug="cosimlex") is None
    from annotation.models import Project

    project = Project.objects.get(pk=response.item.project_id)
    Project.objects.filter(pk=project.pk).update(kind="cosimlex")  # validated as recam: not any more
    assert save() is None
    Project.objects.filter(pk=project.pk).update(kind=project.kind)
    assert save(answers_before={}) is None
    saved = save()
    assert saved is not None and saved.response.answers == {**answers, "post": {"choice": 1}}
    assert saved.annotator.project.kind == "recam" and saved.response.item.payload == response.item.payload
    assert (saved.done, saved.total) == (0, 2)
    assert save() is None  # its claim no longer holds


def _complete_item(client, url):
    """Answer the current item up to its last page; that page's fields and response."""
    fields, response = _at_page(client, url, "pre")
    for _ in range(6):
        assert client.post(url, {**fields, **answer_for(fields["page"], response.item)}).status_code == 302
        fields = form_fields(client.get(url).content.decode())
    assert fields["page"] == "difficulty"
    return fields, Response.objects.select_related("item").get(pk=fields["response"])


@needs_postgres
def test_the_page_that_completes_an_item_is_saved_by_one_statement_and_the_next_item_follows(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _complete_item(client, url)
    before = Response.objects.get(pk=response.pk)
    answer, queries = _post(client, url, {**fields, **answer_for("difficulty", response.item)}, **SWAP)
    assert answer.status_code == 200 and len(queries) == 1 and "EXECUTE" in queries[0], queries
    saved = Response.objects.get(pk=response.pk)
    assert saved.answers == {**before.answers, "difficulty": {"difficulty": "medium"}}
    assert set(saved.timings) == set(saved.answers) and saved.timings["difficulty"]["seconds"] is not None
    assert saved.completed_at.isoformat() == saved.timings["difficulty"]["saved_at"]  # one time, as the usual save
    assert Assignment.objects.get(pk=response.assignment_id).status == Assignment.Status.ACTIVE
    # the answer is the unit's next item, first page, as a GET shows it (item 2 of 2)
    swapped, shown = answer.content.decode(), client.get(url).content.decode()
    assert form_fields(swapped)["page"] == "pre" and form_fields(swapped)["response"] != str(response.pk)
    assert form_fields(swapped)["response"] == form_fields(shown)["response"]
    for page in (swapped, shown):
        assert '<p id="progress">Item 2 of 2\n' in page


@needs_postgres
def test_the_units_last_item_submits_the_assignment_and_the_next_unit_is_handed_out(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, first = _complete_item(client, url)
    assert client.post(url, {**fields, **answer_for("difficulty", first.item)}).status_code == 302
    fields, last = _complete_item(client, url)
    answer, queries = _post(client, url, {**fields, **answer_for("difficulty", last.item)}, **SWAP)
    assert answer.status_code == 200
    assignment = Assignment.objects.get(pk=last.assignment_id)
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.submitted_at is not None
    assert Response.objects.get(pk=last.pk).completed_at is not None
    page = answer.content.decode()
    assert "Thank you! That set of items is saved." in page
    nxt = Response.objects.get(pk=form_fields(page)["response"])
    assert nxt.assignment_id != assignment.pk and form_fields(page)["page"] == "pre"
    assert "Thank you! That set of items is saved." not in client.get(url).content.decode()  # shown once
    assert len([q for q in queries if "SAVEPOINT" in q]) <= 4  # the hand-out's transaction, as the usual way


@needs_postgres
def test_a_completing_page_twice_is_saved_once(client, invite):  # noqa: F811
    url = join(client, invite)
    fields, response = _complete_item(client, url)
    data = {**fields, **answer_for("difficulty", response.item)}
    first, one = _post(client, url, data, **SWAP)
    stored = Response.objects.get(pk=response.pk)
    second, usual = _post(client, url, data, **SWAP)
    assert len(one) == 1 and len(usual) > 1
    again = Response.objects.get(pk=response.pk)
    assert (again.answers, again.timings, again.completed_at) == (stored.answers, stored.timings, stored.completed_at)
    assert form_fields(second.content.decode())["response"] == form_fields(first.content.decode())["response"]
    assert Response.objects.filter(assignment_id=response.assignment_id).count() == 2


@needs_postgres
def test_a_completing_save_of_an_assignment_that_is_no_longer_current_goes_the_usual_way(client, invite):  # noqa: F811
    """The annotator joined another batch meanwhile: the next page view shows that batch's work,
    so the one statement, which would show this unit's next item, leaves the save to the usual way."""
    from annotation.models import Annotator
    from annotation.services.batches import batch_create

    url = join(client, invite)
    fields, response = _complete_item(client, url)
    annotator = Annotator.objects.get(access_key=url.rstrip("/").rsplit("/", 1)[1])
    other = batch_create(project=annotator.project, name="b2", items=list(annotator.project.items.all()[6:8]),
                         items_per_unit=2, assignments_per_unit=1)
    Annotator.objects.filter(pk=annotator.pk).update(batch=other)
    answer, queries = _post(client, url, {**fields, **answer_for("difficulty", response.item)}, **SWAP)
    assert answer.status_code == 200 and len(queries) > 1
    assert Response.objects.get(pk=response.pk).completed_at is not None
    shown = Response.objects.get(pk=form_fields(answer.content.decode())["response"])
    assert shown.assignment.unit.batch_id == other.pk  # what the usual way and a reload show
    assert form_fields(client.get(url).content.decode())["response"] == str(shown.pk)


def test_page_state_reads_back_only_well_formed_claims_of_the_posted_response():
    good = _token('{"a":{"pre":{"choice":1}},"i":7,"k":"recam","r":3}')
    assert flow.page_state(good, 3) == flow.PageState(3, 7, "recam", {"pre": {"choice": 1}})
    bad = ["{", "[]", '{"r":3,"i":"7","k":"recam","a":{}}', '{"r":3,"i":7,"k":1,"a":{}}', '{"r":3,"i":7,"k":"recam","a":[]}',
           '{"r":true,"i":7,"k":"recam","a":{}}', '{"r":3,"i":7,"k":"recam"}']
    for token, response_id in [(good, 4), (good, None), ("", 3), ("not base64!", 3), (good[:-3], 3),
                               *((_token(text), 3) for text in bad)]:
        assert flow.page_state(token, response_id) is None, token


def test_page_state_token_round_trips_and_needs_no_escaping(rf):
    from annotation.kinds import get_kind
    from annotation.models import Item

    item = Item(pk=5, payload={})
    response = Response(pk=9, item=item, answers={"post": {"choice": 2}, "pre": {"end": 4, "start": 0, "text": "<\"é'&>"}})
    step = flow.Step(kind=get_kind("recam"), response=response, page=None, index=3, count=7)
    token = flow.page_state_token(step)
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")
    assert flow.page_state(token, 9) == flow.PageState(9, 5, "recam", response.answers)
    # the answers' keys in any order give the same token
    response.answers = {"pre": {"text": "<\"é'&>", "start": 0, "end": 4}, "post": {"choice": 2}}
    assert flow.page_state_token(step) == token
