"""Issue 27: the study steps around the work (consent, a two-attempt comprehension check with the
instructions again between attempts, an exit survey) for the four built-in kinds and a task-file
kind on invite links, and on MTurk's and Prolific's pages (tests/prolific_channel has Prolific's
return code). The server holds the work until the steps are passed."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, Participation, Response
from annotation.services.batches import batch_create, invite_link_create, study_change_problem
from annotation.services.checks import CheckLine, items_mark_checks
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.annotation.test_kind_contract import KIND_SAMPLES, TASK_FILE
from tests.conftest import data_file
from tests.factories import TeamFactory

from .test_mturk_pages import entry_url, local_endpoint, mturk_batch  # noqa: F401 - the fixture
from .test_recam_flow import answer_for

pytestmark = pytest.mark.django_db
STUDY = data_file("studies", "reading_study.yaml").read_text(encoding="utf-8")
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
RIGHT = {"many_answers": "no", "look_up": "no"}
WRONG = {"many_answers": "yes", "look_up": "no"}


def hidden(html: str) -> dict[str, str]:
    return {n: unescape(v) for n, v in HIDDEN.findall(html) if n != "csrfmiddlewaretoken"}


def study_batch(slug: str = "recam", *, items: int = 2, annotators: int = 2, study: str = STUDY):
    if slug == "task_file":
        project = project_create(name="study", team=TeamFactory(), task_file=TASK_FILE)
    else:
        project = project_create(name="study", kind=slug, team=TeamFactory())
    path, _ = KIND_SAMPLES[slug]
    items_import(project=project, data=data_file(*path).read_bytes(), filename=path[-1])
    chosen, groups = [], set()
    for item in project.items.order_by("id"):  # one item of a group (CoSimLex's two contexts of a pair)
        if len(chosen) < items and (not item.group_key or item.group_key not in groups):
            chosen.append(item)
            groups.add(item.group_key)
    return batch_create(
        project=project, name="b", items=chosen, items_per_unit=items, assignments_per_unit=annotators, study=study
    )


def join(client, batch) -> str:
    return client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]


def check(client, url: str, answers: dict, attempt: int):
    return client.post(url, {"study_step": "comprehension", "attempt": str(attempt), **answers})


def answer_items(client, url: str, slug: str) -> str:
    """Answer every page the work shows; the page that follows the work."""
    _, answer_page = KIND_SAMPLES[slug]
    for _ in range(60):
        html = client.get(url).content.decode()
        fields = hidden(html)
        if "response" not in fields:
            return html
        payload = Response.objects.get(pk=fields["response"]).item.payload
        saved = client.post(url, {**fields, **answer_page(payload, fields["page"])})
        assert saved.status_code == 302, saved.content.decode()[:2000]
    raise AssertionError("the work did not end")


@pytest.mark.parametrize("slug", ["recam", "cosimlex", "gcrc", "scde", "task_file"])
def test_consent_then_a_second_try_then_the_work_then_the_exit_survey(client, slug):
    batch = study_batch(slug)
    url = join(client, batch)
    page = client.get(url).content.decode()
    assert 'id="consent"' in page and "research on reading" in page and 'name="response"' not in page
    assert client.post(url, {"study_step": "consent", "consent": "yes"})["Location"] == url
    page = client.get(url).content.decode()
    assert 'id="comprehension-form"' in page and 'id="study-instructions"' in page
    assert "You have 2 attempts" in page and 'name="attempt" value="1"' in page
    check(client, url, WRONG, 1)
    retry = client.get(url).content.decode()
    assert 'id="comprehension-retry"' in retry and "1 more attempt" in retry and 'id="study-instructions"' in retry
    assert "many_answers" not in retry.split('id="comprehension-retry"')[1].split("</p>")[0]  # which: not told
    check(client, url, RIGHT, 2)
    after = answer_items(client, url, slug)
    assert 'id="exit-survey-form"' in after and "How hard was the task?" in after
    assert client.post(url, {"study_step": "exit", "difficulty": "2", "remarks": "fine"}).status_code == 302
    assert 'id="done"' in client.get(url).content.decode()
    p = Participation.objects.get(batch=batch)
    assert p.consent == "agreed" and p.comprehension == "passed"
    assert [a["passed"] for a in p.attempts] == [False, True]
    assert p.attempts[0]["correct"] == {"many_answers": False, "look_up": True}
    assert p.exit_answers == {"difficulty": 2, "remarks": "fine"}
    assert all(r.completed_at for r in Response.objects.filter(assignment__unit__batch=batch))


def test_two_failed_attempts_end_the_part_with_no_work_and_free_the_place(client):
    batch = study_batch(annotators=1)
    url = join(client, batch)
    client.post(url, {"study_step": "consent", "consent": "yes"})
    check(client, url, WRONG, 1)
    check(client, url, WRONG, 2)
    page = client.get(url).content.decode()
    assert 'id="study-ended"' in page and "did not pass the check" in page and "You may close this page." in page
    p = Participation.objects.get()
    assert p.comprehension == "failed" and len(p.attempts) == 2
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    # a third attempt, and the consent again, change nothing
    check(client, url, RIGHT, 3)
    client.post(url, {"study_step": "consent", "consent": "yes"})
    p.refresh_from_db()
    assert p.comprehension == "failed" and len(p.attempts) == 2
    # the one place of the unit goes to somebody else, who can do the work
    other = join(client.__class__(), batch)
    assert other != url


def test_a_double_submitted_attempt_is_counted_once(client):
    batch = study_batch()
    url = join(client, batch)
    client.post(url, {"study_step": "consent", "consent": "yes"})
    check(client, url, WRONG, 1)
    check(client, url, WRONG, 1)  # the same page posted twice (a double click, a reload)
    p = Participation.objects.get()
    assert len(p.attempts) == 1 and p.comprehension == ""
    assert "1 more attempt" in client.get(url).content.decode()


def test_an_unanswered_check_is_shown_again_with_its_errors_and_uses_no_attempt(client):
    batch = study_batch()
    url = join(client, batch)
    client.post(url, {"study_step": "consent", "consent": "yes"})
    page = check(client, url, {"many_answers": "no"}, 1)
    assert page.status_code == 400 and "This field is required." in page.content.decode()
    assert Participation.objects.get().attempts == []


def test_work_is_held_on_the_server_until_the_steps_are_passed(client):
    """A page of an item posted before the comprehension check is passed is refused and saves nothing."""
    batch = study_batch()
    url = join(client, batch)
    client.post(url, {"study_step": "consent", "consent": "yes"})
    assignment_id = Participation.objects.get().annotator.assignments.values_list("pk", flat=True).first()
    assert assignment_id is None  # an invite link hands out work only after the steps
    # a channel that opens the work at entry holds it instead: forge a save on a held assignment
    client.post(url, {"study_step": "comprehension", "attempt": "1", **RIGHT})
    client.get(url)  # the first item
    assignment = Assignment.objects.get()
    assert not assignment.study_hold
    Assignment.objects.filter(pk=assignment.pk).update(study_hold=True)
    response = assignment.responses.first()
    _, answer_page = KIND_SAMPLES["recam"]
    fields = {"response": response.pk, "page": "pre", "shown": ""}
    client.post(url, {**fields, **answer_page(response.item.payload, "pre")})
    response.refresh_from_db()
    assert response.answers == {}


def test_declining_ends_the_part(client):
    batch = study_batch()
    url = join(client, batch)
    client.post(url, {"study_step": "consent", "consent": "no"})
    page = client.get(url).content.decode()
    assert 'id="study-ended"' in page and "You did not agree" in page
    assert not Assignment.objects.exists()


def _work_page_queries(client, url: str) -> int:
    client.get(url)  # the first GET hands the unit out
    with CaptureQueriesContext(connection) as queries:
        html = client.get(url).content.decode()
    assert 'name="response"' in html
    return len(queries)


def test_a_batch_without_a_study_asks_nothing_and_a_passed_study_adds_no_query_to_a_work_page():
    plain = Client()
    plain_url = join(plain, study_batch(study=""))
    assert "consent" not in plain.get(plain_url).content.decode()
    without = _work_page_queries(plain, plain_url)
    assert not Participation.objects.exists()
    person = Client()
    url = join(person, study_batch())
    person.post(url, {"study_step": "consent", "consent": "yes"})
    check(person, url, RIGHT, 1)
    assert _work_page_queries(person, url) == without


@pytest.mark.usefixtures("local_endpoint")
def test_mturk_workers_who_fail_are_asked_to_return_the_hit():
    batch = mturk_batch()
    batch.study = STUDY
    batch.save(update_fields=["study"])
    worker = Client()
    work = worker.get(entry_url("HIT0", "ASSIGN1", "AWORKER"))["Location"]
    page = worker.get(work).content.decode()
    assert 'id="consent"' in page
    worker.post(work, {"study_step": "consent", "consent": "yes"})
    assert Assignment.objects.get().study_hold
    check(worker, work, WRONG, 1)
    check(worker, work, WRONG, 2)
    ended = worker.get(work).content.decode()
    assert "Please return this HIT on Mechanical Turk" in ended and 'name="response"' not in ended
    assert Assignment.objects.get().status == Assignment.Status.RELEASED


def test_the_steps_are_fixed_once_somebody_has_answered_them(client):
    batch = study_batch()
    other = STUDY.replace("May you look answers up on the web?", "May you search the web?")
    assert study_change_problem(batch, other) == ""  # nobody has answered yet
    url = join(client, batch)
    assert study_change_problem(batch, other) == ""  # joined, but answered nothing
    client.post(url, {"study_step": "consent", "consent": "yes"})
    assert "1 person(s) have answered" in study_change_problem(batch, other)
    assert study_change_problem(batch, STUDY) == ""  # unchanged


@pytest.mark.usefixtures("local_endpoint")
def test_an_mturk_worker_stopped_by_live_quality_submits_the_hit_for_review():
    batch = mturk_batch()
    check = batch.project.items.exclude(units__batch=batch).order_by("id").first()
    wrong = (int(check.payload["label"]) + 1) % 5
    items_mark_checks(project=batch.project, lines=[CheckLine(1, check.external_id, {"post_choice": wrong})])
    batch.study = "attention:\n  rate: 0.5\n  stop_below: 0.5\n  after: 1\n"
    batch.save(update_fields=["study"])
    worker = Client()
    work = worker.get(entry_url("HIT0", "ASSIGN1", "AWORKER"))["Location"]
    for _ in range(30):
        page = worker.get(work).content.decode()
        if 'id="study-ended"' in page:
            break
        fields = hidden(page)
        item = Response.objects.get(pk=fields["response"]).item
        worker.post(work, {**fields, **answer_for(fields["page"], item)})
    assert 'data-step="stopped"' in page and 'id="mturk-submit"' in page and "ASSIGN1" in page
    assert Response.objects.get(item=check).check_passed is False
