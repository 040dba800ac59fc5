"""The demo's study batch (`load_demo`), walked as a participant would with the invite link it
prints: consent, the comprehension check, the practice item with its feedback, the work with an
attention check mixed in, the exit survey; a careless participant is stopped by live quality."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Batch, InviteLink, Participation, Response
from tests.annotation.test_kind_contract import recam_answers

from .test_study_flow import hidden

pytestmark = pytest.mark.django_db
RIGHT = {"before_reading": "guess", "one_word": "one"}


@pytest.fixture
def study_link() -> tuple[Batch, str]:
    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    invite = InviteLink.objects.get(batch__name="Study demo batch")
    return invite.batch, reverse("surveys:invite", args=[invite.token])


def start(client: Client, link: str) -> str:
    url = client.post(link)["Location"]
    consent = client.get(url).content.decode()
    assert 'id="consent"' in consent and "This is a demo of a research study." in consent
    client.post(url, {"study_step": "consent", "consent": "yes"})
    assert 'id="comprehension-form"' in client.get(url).content.decode()
    client.post(url, {"study_step": "comprehension", "attempt": "1", **RIGHT})
    return url


def answer_item(client: Client, url: str, *, right: bool) -> tuple[Response, str]:
    """Every page of the current item (the answer after reading wrong unless `right`); the item's
    response and the page its last save answered with."""
    fields = hidden(client.get(url).content.decode())
    response = Response.objects.select_related("item").get(pk=fields["response"])
    last = ""
    while fields.get("response") == str(response.pk):
        answer = recam_answers(response.item.payload, fields["page"])
        if fields["page"] == "post" and not right:
            answer = {"choice": str((int(response.item.payload["label"]) + 1) % 5)}
        last = client.post(url, {**fields, **answer}, HTTP_X_PAGE_SWAP="1").content.decode()
        fields = hidden(last)
    response.refresh_from_db()
    return response, last


def test_a_participant_walks_every_step_of_the_demo_study(client, study_link):
    batch, link = study_link
    url = start(client, link)
    practice, feedback = answer_item(client, url, right=True)
    assert practice.training and practice.item.external_id == "check-practice"
    assert 'id="training-feedback" data-right="yes"' in feedback and "the morning was cold" in feedback
    seen = []
    while "response" in hidden(client.get(url).content.decode()):
        response, _ = answer_item(client, url, right=True)
        seen.append(response)
    checks = [r for r in seen if r.item.check_answer is not None]
    assert len(seen) == 8 and len(checks) == 2  # both units: 3 items and a check each
    assert all(r.position > 0 for r in checks if r.assignment_id != practice.assignment_id)  # never first
    assert all(r.check_passed for r in checks) and len({r.item_id for r in checks}) == 2  # never twice
    page = client.get(url).content.decode()
    assert 'id="exit-survey-form"' in page
    client.post(url, {"study_step": "exit", "difficulty": "2", "remarks": ""})
    person = Participation.objects.get(batch=batch)
    assert (person.consent, person.comprehension, person.stopped_at) == ("agreed", "passed", None)
    assert person.exit_answers == {"difficulty": 2, "remarks": None}  # an optional text left empty


def test_a_careless_participant_is_stopped_after_two_wrong_checks(client, study_link):
    batch, link = study_link
    url = start(client, link)
    answer_item(client, url, right=False)  # practice: counts for nothing
    for _ in range(20):
        if "response" not in hidden(client.get(url).content.decode()):
            break
        answer_item(client, url, right=False)
        if Participation.objects.get(batch=batch).stopped_at:
            break
    person = Participation.objects.get(batch=batch)
    assert person.stopped_at is not None and "2 check" in person.stop_reason
    assert Response.objects.filter(assignment__unit__batch=batch, check_passed=False, training=False).count() == 2
