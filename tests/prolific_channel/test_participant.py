"""The participant's way in and out: the study URL from Prolific's (simulated) app, our pages,
and back to Prolific with the code; wrong ids refused; a forged session never reaches another
participant's work (the takeover of tests/surveys/test_mturk_assignment_binding.py)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from annotation.channels import get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Annotator, Assignment, Participation, Response
from annotation.services.checks import CheckLine, items_mark_checks
from surveys.prolific import work_token_pk
from tests.factories import ItemFactory
from tests.surveys.test_recam_flow import answer_for, form_fields

from .conftest import BASE_URL, admin, answer_all, open_study, pid, prolific_batch, submission_row, take_part

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


@pytest.fixture
def study(server):
    batch = prolific_batch(units=3, assignments=2)
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    return batch, batch.units.first().channel_ref


def entry(pid: str, study_id: str, session: str) -> str:
    return (
        reverse("surveys:prolific")
        + "?"
        + urlencode({"PROLIFIC_PID": pid, "STUDY_ID": study_id, "SESSION_ID": session})
    )


def test_a_participant_completes_a_unit_and_prolific_gets_our_code(server, study):
    batch, study_id = study
    done = take_part(server, study_id, "PART1")
    code = completion_codes(batch)["COMPLETED"]
    assert done["completion"] == f"{server.completion_url}?cc={code}"
    row = submission_row(server, done["session"])
    assert row["status"] == "AWAITING REVIEW" and row["code"] == code
    assignment = Assignment.objects.get(channel_assignment_id=done["session"])
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.annotator.external_id == pid("PART1")
    assert all(r.completed_at for r in assignment.responses.all())


def test_opening_the_url_twice_gives_the_same_work_and_a_return_later_resumes(server, study):
    _batch, study_id = study
    first = take_part(server, study_id, "PART1", finish=False)
    platform, work = first["platform"], first["work"]
    fields = form_fields(platform.get(work).content.decode())
    item = Response.objects.get(pk=fields["response"]).item
    platform.post(work, {**fields, **answer_for(fields["page"], item)})
    again = Client().get(reverse("surveys:prolific") + "?" + first["study_url"].split("?", 1)[1])
    assert work_token_pk(again["Location"].rstrip("/").rsplit("/", 1)[1]) == work_token_pk(
        work.rstrip("/").rsplit("/", 1)[1]
    )
    assert form_fields(Client().get(again["Location"]).content.decode())["page"] != fields["page"]  # resumed
    assert Assignment.objects.count() == 1


@pytest.mark.parametrize(
    "query",
    [
        {"PROLIFIC_PID": "P1", "STUDY_ID": "NOT-OUR-STUDY", "SESSION_ID": "S1"},
        {"PROLIFIC_PID": "P1", "SESSION_ID": "S1"},
        {"PROLIFIC_PID": "<script>", "STUDY_ID": "X", "SESSION_ID": "S1"},
        {"PROLIFIC_PID": "a" * 24, "STUDY_ID": "b" * 24, "SESSION_ID": "c" * 24},  # well formed, not our study
    ],
)
def test_ids_that_do_not_match_a_study_of_ours_are_refused_with_a_clear_page(study, client, query):
    page = client.get(reverse("surveys:prolific") + "?" + urlencode(query))
    assert page.status_code in (400, 404)
    assert "Prolific" in page.content.decode()
    assert not Annotator.objects.exists() and not Assignment.objects.exists()


def test_a_forged_session_for_a_victims_pid_is_refused_at_entry_and_takes_no_place(server, study):
    """Before: a made-up SESSION_ID under a real participant's id started work of its own, which
    took one of the study's places and counted in that participant's accuracy. Now Prolific is
    asked first (GET /submissions/{id}/): it does not know the session, so nothing is handed out."""
    batch, study_id = study
    victim = take_part(server, study_id, "VICTIM", finish=False)
    before = Assignment.objects.count()
    forged = Client().get(entry(pid("VICTIM"), study_id, "0123456789abcdef01234567"))
    assert forged.status_code == 403
    assert "Prolific does not know this session" in forged.content.decode()
    assert Assignment.objects.count() == before  # no work, no place
    # nor another participant's real session under the victim's id
    other = take_part(server, study_id, "OTHER", finish=False)
    stolen = Client().get(entry(pid("VICTIM"), study_id, other["session"]))
    assert stolen.status_code == 403 and "another participant" in stolen.content.decode()
    assert Assignment.objects.count() == before + 1
    assert Assignment.objects.get(channel_assignment_id=victim["session"]).confirmed
    lookups = admin(server, "GET", "/_local/requests?operation=get_submission")
    assert [r["status"] for r in lookups] == [200, 404, 200, 200]


@pytest.mark.parametrize("garble", [lambda s: s + " ", str.upper], ids=["trailing space", "upper case"])
def test_a_session_id_not_in_prolifics_form_is_refused_and_starts_no_work(server, study, garble):
    _batch, study_id = study
    _browser, study_url = open_study(server, study_id, "PART1")
    real = study_url.split("SESSION_ID=")[1]
    page = Client().get(entry(pid("PART1"), study_id, garble(real)))
    assert page.status_code == 400 and "SESSION_ID" in page.content.decode()
    assert not Assignment.objects.exists()


CONSENT = "Your answers are used for research on reading. You may stop at any time."


@pytest.fixture
def consent_study(server):
    batch = prolific_batch(units=2, assignments=1, channel_settings={"min_approval_rate": None})
    batch.study = f"consent:\n  text: {CONSENT}\n"
    batch.save(update_fields=["study"])
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    return batch, batch.units.first().channel_ref


def test_a_participant_who_agrees_does_the_work_and_gets_the_completed_code(server, consent_study):
    batch, study_id = consent_study
    started = take_part(server, study_id, "AGREES", finish=False)
    platform, work = started["platform"], started["work"]
    page = platform.get(work).content.decode()
    assert CONSENT in page and 'id="consent-yes"' in page
    assert 'name="response"' not in page  # no item's form before the answer
    assert platform.post(work, {"study_step": "consent", "consent": "yes"})["Location"] == work
    assignment = Assignment.objects.get(channel_assignment_id=started["session"])
    participation = Participation.objects.get(annotator=assignment.annotator, batch=batch)
    assert participation.consent == "agreed" and participation.consent_at is not None
    assert assignment.status == Assignment.Status.ACTIVE and not assignment.study_hold
    assert CONSENT not in platform.get(work).content.decode()  # the first item now
    assert answer_all(platform, work).endswith("cc=" + completion_codes(batch)["COMPLETED"])


def test_a_participant_who_declines_goes_back_with_the_second_code_and_frees_the_place(server, consent_study):
    batch, study_id = consent_study
    started = take_part(server, study_id, "DECLINES", finish=False)
    platform, work = started["platform"], started["work"]
    platform.post(work, {"study_step": "consent", "consent": "no"})
    assignment = Assignment.objects.get(channel_assignment_id=started["session"])
    assert assignment.status == Assignment.Status.RELEASED and assignment.study_hold
    assert Participation.objects.get(annotator=assignment.annotator).consent == "declined"
    page = platform.get(work).content.decode()
    failed_code = completion_codes(batch)["FAILED_ATTENTION_CHECK"]
    assert (
        'id="study-ended"' in page
        and "You did not agree" in page
        and f'href="{server.completion_url}?cc={failed_code}"' in page
    )
    assert not Response.objects.filter(assignment=assignment, completed_at__isnull=False).exists()
    landed = started["prolific_side"].get(f"{server.completion_url}?cc={failed_code}")
    assert landed.status == 200
    row = submission_row(server, started["session"])
    assert row["code"] == failed_code and row["return_requested"] == 1  # Prolific asks them to return it
    admin(server, "POST", "/_local/return", {"submission_id": started["session"]})  # they return it as asked
    others = [take_part(server, study_id, pid, finish=False) for pid in ("NEXT1", "NEXT2")]  # 2 units, 1 place each
    units = {Assignment.objects.get(channel_assignment_id=o["session"]).unit_id for o in others}
    assert assignment.unit_id in units  # the declined unit went to somebody else


def test_a_participant_stopped_by_live_quality_goes_back_with_the_completed_code_for_review(server):
    """Issue 27: a wrong answer to the check item stops the work (`after: 1`); the participant is
    sent back with the completed code, so the researcher's review decides, never a rejection."""
    batch = prolific_batch(units=2, assignments=1)
    check = ItemFactory(project=batch.project, external_id="check-1")
    items_mark_checks(project=batch.project, lines=[CheckLine(1, "check-1", {"post_choice": 4})])  # answer_for says 1
    batch.study = "attention:\n  rate: 0.5\n  stop_below: 0.5\n  after: 1\n"
    batch.save(update_fields=["study"])
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    started = take_part(server, batch.units.first().channel_ref, "SPAMMER", finish=False)
    platform, work = started["platform"], started["work"]
    for _ in range(20):
        page = platform.get(work).content.decode()
        if 'id="study-ended"' in page:
            break
        fields = form_fields(page)
        item = Response.objects.select_related("item").get(pk=fields["response"]).item
        platform.post(work, {**fields, **answer_for(fields["page"], item)})
    code = completion_codes(batch)["COMPLETED"]
    assert 'data-step="stopped"' in page and f'href="{server.completion_url}?cc={code}"' in page
    assert Response.objects.get(item=check).check_passed is False
    assert Participation.objects.get().stop_reason.startswith("live quality: 0 of 1 check answers right")
