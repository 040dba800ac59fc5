"""The worker's side of MTurk through Django's test client: preview records nothing, an accepted
assignment opens our pages by a signed token (no cookies), framing is allowed only for MTurk's
hosts, and the last page posts the completion token back to turkSubmitTo."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from annotation.models import Annotator, Assignment, Batch, Item, Response, Unit
from annotation.mturk.tokens import completion_token, work_token_data
from annotation.services.batches import batch_create
from annotation.services.imports import items_import
from tests.conftest import data_file
from tests.factories import ProjectFactory

from .test_recam_flow import answer_for, form_fields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("local_endpoint")]

SUBMIT_TO = "https://workersandbox.mturk.com"


@pytest.fixture
def local_endpoint():
    with override_settings(MTURK_ENDPOINT="local", MTURK_LOCAL_URL="http://127.0.0.1:8765"):
        yield


def mturk_batch(kind: str = "recam", *, items=None, items_per_unit: int = 2) -> Batch:
    """A batch whose units carry HIT ids, as publishing leaves them."""
    if kind == "recam":
        project = ProjectFactory(kind="recam")
        items_import(project=project, data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes())
    else:
        project = ProjectFactory(kind="cosimlex")
        items_import(project=project, data=data_file("cosimlex", "cosimlex_fi.sample.csv").read_bytes())
    chosen = items(project) if items else list(Item.objects.filter(project=project).order_by("id")[:4])
    batch = batch_create(
        project=project, name="hits", items=chosen, items_per_unit=items_per_unit, assignments_per_unit=3
    )
    Batch.objects.filter(pk=batch.pk).update(channel="mturk")
    for unit in Unit.objects.filter(batch=batch):
        Unit.objects.filter(pk=unit.pk).update(channel_ref=f"HIT{unit.position}")
    return batch


def entry_url(
    hit: str, assignment: str = "ASSIGNMENT_ID_NOT_AVAILABLE", worker: str | None = None, submit_to: str = SUBMIT_TO
) -> str:
    query = {"assignmentId": assignment, "hitId": hit}
    if worker:
        query.update(workerId=worker, turkSubmitTo=submit_to)
    return reverse("surveys:mturk") + "?" + urlencode(query)


def test_preview_shows_instructions_and_an_example_and_records_nothing(client):
    mturk_batch()
    page = client.get(entry_url("HIT0"))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="preview"' in html and 'id="example"' in html
    assert "<fieldset disabled" in html and "Instructions" in html
    assert not Annotator.objects.exists() and not Assignment.objects.exists()
    assert "X-Frame-Options" not in page.headers
    directives = dict(d.strip().split(" ", 1) for d in page["Content-Security-Policy"].split(";") if d.strip())
    assert {"https://worker.mturk.com", "https://workersandbox.mturk.com", "http://127.0.0.1:8765"} <= set(
        directives["frame-ancestors"].split()
    )
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]


@override_settings(MTURK_ENDPOINT="sandbox")
def test_framing_is_limited_to_mturk_hosts_off_the_local_endpoint(client):
    mturk_batch()
    csp = client.get(entry_url("HIT0"))["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if d.strip())
    assert (
        directives["frame-ancestors"]
        == "https://worker.mturk.com https://workersandbox.mturk.com https://www.mturk.com"
    )
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"  # the site's policy holds


def test_accepted_assignment_is_done_without_cookies_and_submits_the_completion_token():
    batch = mturk_batch()
    browser = Client(enforce_csrf_checks=True)  # a third-party frame: no CSRF cookie comes back
    opened = browser.get(entry_url("HIT0", "ASSIGN1", "AWORKER1"))
    assert opened.status_code == 302
    work = opened["Location"]
    again = browser.get(entry_url("HIT0", "ASSIGN1", "AWORKER1"))["Location"]
    # a reload: the same work (the token is signed with a timestamp: its text changes each second)
    assert work_token_data(again.rstrip("/").rsplit("/", 1)[1]) == work_token_data(work.rstrip("/").rsplit("/", 1)[1])
    assert work_token_data(work.rstrip("/").rsplit("/", 1)[1])[0] == Assignment.objects.get().pk
    assignment = Assignment.objects.get()
    assert assignment.channel_assignment_id == "ASSIGN1" and assignment.unit.channel_ref == "HIT0"
    assert assignment.annotator.channel == "mturk" and assignment.annotator.external_id == "AWORKER1"
    assert assignment.annotator.batch_id == batch.pk
    fresh = Client(enforce_csrf_checks=True)  # every request without cookies at all
    for _ in range(2 * 7):
        html = fresh.get(work).content.decode()
        fields = form_fields(html)
        response = Response.objects.select_related("item").get(pk=fields["response"])
        saved = fresh.post(work, {**fields, **answer_for(fields["page"], response.item)})
        assert saved.status_code == 302 and saved["Location"] == work
    assert all(r.completed_at for r in Response.objects.filter(assignment=assignment))
    final = fresh.get(work).content.decode()
    assert f'action="{SUBMIT_TO}/mturk/externalSubmit"' in final
    assert re.search(r'name="assignmentId" value="ASSIGN1"', final)
    token = re.search(r'name="completionToken" value="([^"]+)"', final).group(1)
    assert token == completion_token("ASSIGN1") and token != completion_token("ASSIGN2")
    assert Assignment.objects.get().status == Assignment.Status.SUBMITTED


def test_a_save_that_died_before_submitting_is_finished_when_the_frame_shows_the_submit_page():
    mturk_batch()
    browser = Client(enforce_csrf_checks=True)
    work = browser.get(entry_url("HIT0", "ASSIGN1", "AWORKER1"))["Location"]
    assignment = Assignment.objects.get()
    # every item complete, the assignment still active (the save's second statement never ran)
    Response.objects.filter(assignment=assignment).update(
        answers={"pre": {"choice": 0}}, completed_at=assignment.started_at
    )
    final = browser.get(work).content.decode()
    assert 'id="mturk-submit"' in final
    assert Assignment.objects.get().status == Assignment.Status.SUBMITTED


@pytest.mark.parametrize(
    "params, status",
    [
        ({"hit": "NO-SUCH-HIT", "assignment": "A", "worker": "W"}, 404),
        ({"hit": "HIT0", "assignment": "A", "worker": "W", "submit_to": "https://evil.example"}, 400),
        ({"hit": "HIT0", "assignment": "A", "worker": "W", "submit_to": "javascript:alert(1)"}, 400),
    ],
)
def test_unknown_hits_and_foreign_submit_hosts_are_refused(client, params, status):
    mturk_batch()
    assert client.get(entry_url(**params)).status_code == status
    assert not Assignment.objects.exists()


def test_a_forged_or_foreign_token_reaches_nothing(client):
    mturk_batch()
    work = client.get(entry_url("HIT0", "ASSIGN1", "AWORKER1"))["Location"]
    other = client.get(entry_url("HIT1", "ASSIGN2", "AWORKER2"))["Location"]
    assert client.get(work[:-3] + "xx/").status_code == 404
    assert client.get(reverse("surveys:mturk-work", args=["not-a-token"])).status_code == 404
    theirs = form_fields(client.get(other).content.decode())
    # AWORKER1's page cannot save into AWORKER2's item, even with a valid response id
    assert client.post(work, {**theirs, "choice": "0"}).status_code == 404
    assert Response.objects.get(pk=theirs["response"]).answers == {}


def test_cosimlex_worker_who_rated_one_context_is_refused_the_other():
    def both_contexts_of_two_pairs(project):
        items = list(Item.objects.filter(project=project).order_by("id")[:4])
        return [items[0], items[2], items[1], items[3]]  # HIT0: contexts 1 of two pairs; HIT1: contexts 2

    mturk_batch("cosimlex", items=both_contexts_of_two_pairs, items_per_unit=2)
    client = Client()
    assert client.get(entry_url("HIT0", "A1", "AWORKER1")).status_code == 302
    refused = client.get(entry_url("HIT1", "A2", "AWORKER1"))
    assert refused.status_code == 409 and "return" in refused.content.decode()
    assert client.get(entry_url("HIT1", "A3", "AWORKER2")).status_code == 302
    assert Assignment.objects.count() == 2


def test_work_page_queries_stay_few_and_constant_in_the_frame():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.surveys.test_query_counts import MAX_SAVE_QUERIES, MAX_VIEW_QUERIES

    mturk_batch(items_per_unit=4)
    client = Client()
    work = client.get(entry_url("HIT0", "ASSIGNQ", "AWORKERQ"))["Location"]
    views, saves = [], []
    for _ in range(4 * 7):
        with CaptureQueriesContext(connection) as q:
            html = client.get(work).content.decode()
        views.append(len(q))
        fields = form_fields(html)
        item = Response.objects.get(pk=fields["response"]).item
        with CaptureQueriesContext(connection) as q:
            assert client.post(work, {**fields, **answer_for(fields["page"], item)}).status_code == 302
        saves.append(len(q))
    # the signed assignment (with annotator and project), then its unit: one more than invite links
    assert max(views) <= MAX_VIEW_QUERIES + 1 and len(set(views)) == 1, views
    assert max(saves) <= MAX_SAVE_QUERIES + 1, saves
