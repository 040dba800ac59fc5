"""MTurk work is bound to the assignment id it was opened under (hardening issue, item 1).

Before: `/mturk/` trusted `workerId` and `assignmentId` from the query string and, for a worker
who already held an assignment of the HIT, overwrote its assignment id and handed back a working
link: anyone with the HIT id and the victim's worker id could write the victim's answers and
break their payment. Now another assignment id starts a separate assignment with its own answers.
"""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Assignment, Response
from annotation.mturk.tokens import work_token_data

from .test_mturk_pages import entry_url, local_endpoint, mturk_batch  # noqa: F401 - the fixture
from .test_recam_flow import answer_for, form_fields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("local_endpoint")]


def _assignment_of(link: str) -> int:
    return work_token_data(link.rstrip("/").rsplit("/", 1)[1])[0]


def _answer_first_page(browser: Client, work: str) -> dict:
    fields = form_fields(browser.get(work).content.decode())
    item = Response.objects.select_related("item").get(pk=fields["response"]).item
    assert browser.post(work, {**fields, **answer_for(fields["page"], item)}).status_code == 302
    return fields


def test_a_forged_assignment_id_for_a_victims_worker_id_never_reaches_the_victims_work():
    mturk_batch()
    victim = Client(enforce_csrf_checks=True)
    victim_work = victim.get(entry_url("HIT0", "REALASSIGNMENT", "AVICTIM"))["Location"]
    victim_fields = _answer_first_page(victim, victim_work)
    victims_answers = Response.objects.get(pk=victim_fields["response"]).answers
    assert victims_answers

    attacker = Client(enforce_csrf_checks=True)
    opened = attacker.get(entry_url("HIT0", "FORGEDASSIGNMENT", "AVICTIM"))
    attacker_work = opened["Location"]
    assert _assignment_of(attacker_work) != _assignment_of(victim_work)
    attacker_page = attacker.get(attacker_work).content.decode()
    attacker_fields = form_fields(attacker_page)
    assert attacker_fields["response"] != victim_fields["response"]  # a fresh item of its own
    assert attacker_fields["page"] == "pre"
    # posting the victim's response through the forged assignment's link is refused
    forged = attacker.post(attacker_work, {**victim_fields, "choice": "4"})
    assert forged.status_code == 404
    assert Response.objects.get(pk=victim_fields["response"]).answers == victims_answers
    # and the victim's assignment keeps its own id: sync pays only what MTurk reports for it
    real = Assignment.objects.get(pk=_assignment_of(victim_work))
    assert real.channel_assignment_id == "REALASSIGNMENT"
    assert Assignment.objects.get(pk=_assignment_of(attacker_work)).channel_assignment_id == "FORGEDASSIGNMENT"


def test_the_victim_goes_on_with_their_own_answers_after_a_forged_entry():
    mturk_batch()
    victim = Client(enforce_csrf_checks=True)
    victim_work = victim.get(entry_url("HIT0", "REALASSIGNMENT", "AVICTIM"))["Location"]
    _answer_first_page(victim, victim_work)
    Client().get(entry_url("HIT0", "FORGEDASSIGNMENT", "AVICTIM"))
    again = victim.get(entry_url("HIT0", "REALASSIGNMENT", "AVICTIM"))["Location"]
    assert _assignment_of(again) == _assignment_of(victim_work)
    assert form_fields(victim.get(again).content.decode())["page"] == "post"  # where they left off


def test_a_new_assignment_id_after_a_return_starts_afresh_and_a_reload_keeps_its_work():
    mturk_batch()
    worker = Client(enforce_csrf_checks=True)
    first = worker.get(entry_url("HIT0", "FIRST", "AW1"))["Location"]
    _answer_first_page(worker, first)
    second = worker.get(entry_url("HIT0", "SECOND", "AW1"))["Location"]  # returned, accepted again
    assert _assignment_of(second) != _assignment_of(first)
    assert form_fields(worker.get(second).content.decode())["page"] == "pre"
    reload = worker.get(entry_url("HIT0", "SECOND", "AW1"))["Location"]
    assert _assignment_of(reload) == _assignment_of(second)
    assert Assignment.objects.filter(annotator__external_id="AW1").count() == 2
