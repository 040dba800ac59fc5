"""Issue 36, item 4: nobody who followed the rules is harmed. A participant whose part the study
ended (consent declined, the comprehension check failed, stopped by live quality) goes back to
Prolific with the study's second code, whose action asks them to return the submission (or
screens them out with a fixed payment); the README's sync and review steps (including *Reject
unverified*) never reject them; they end RETURNED or SCREENED OUT, and their place goes to the next
participant. Against the local Prolific endpoint, through the real HTTP client and our pages."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.channels import get_channel
from annotation.channels.prolific import completion_codes
from annotation.models import Assignment, Participation, Response, Submission
from annotation.naming import annotator_name
from annotation.selectors.responses import annotation_rows
from annotation.services.checks import CheckLine, items_mark_checks
from annotation.services.review import Decisions, decisions_apply, reject_unverified
from quality.models import AnnotatorDecision, QualityRun
from quality.report.study_steps import project_study_steps
from quality.services.runs import quality_run_create
from tests.factories import ItemFactory
from tests.prolific.conftest import REJECTION
from tests.surveys.test_recam_flow import answer_for, form_fields

from .conftest import BASE_URL, admin, answer_all, pid, prolific_batch, submission_row, take_part

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]

STUDY = """consent:
  text: Your answers are used for research on reading.
comprehension:
  questions:
    - {id: many, type: single_choice, prompt: May an item have two right answers?, options: ["no", "yes"]}
  answers: {many: "no"}
"""
UNVERIFIED = "We found no work saved on our site for this submission, so it cannot be approved. " * 2


def recruit(*args: str) -> str:
    out = StringIO()
    call_command("recruit", *args, stdout=out)
    return out.getvalue()


def study_batch(*, units: int = 2, assignments: int = 2, **settings):
    batch = prolific_batch(
        units=units, assignments=assignments, channel_settings={"min_approval_rate": None, **settings}
    )
    batch.study = STUDY
    batch.save(update_fields=["study"])
    get_channel("prolific").publish(batch, base_url=BASE_URL)
    return batch, batch.units.first().channel_ref


def fail_the_check(server, study_id: str, name: str) -> dict:
    """The participant agrees, answers the check wrongly twice, and follows the ended page's button
    back to Prolific (the simulator)."""
    started = take_part(server, study_id, name, finish=False)
    platform, work = started["platform"], started["work"]
    platform.post(work, {"study_step": "consent", "consent": "yes"})
    for attempt in (1, 2):
        platform.post(work, {"study_step": "comprehension", "attempt": str(attempt), "many": "yes"})
    page = platform.get(work).content.decode()
    assert 'id="study-ended"' in page and "ask you to return the study" in page
    back = page.split(f'href="{server.completion_url}?cc=')[1].split('"')[0]
    started["landed"] = started["prolific_side"].get(f"{server.completion_url}?cc={back}").text
    started["code"] = back
    return started


def pass_and_work(server, study_id: str, name: str) -> dict:
    """The participant agrees, passes the check and does their unit, then goes back with the code."""
    started = take_part(server, study_id, name, finish=False)
    platform, work = started["platform"], started["work"]
    platform.post(work, {"study_step": "consent", "consent": "yes"})
    platform.post(work, {"study_step": "comprehension", "attempt": "1", "many": "no"})
    landed = started["prolific_side"].get(answer_all(platform, work))
    assert landed.status == 200, landed.text
    return started


def test_a_participant_who_fails_the_check_is_asked_to_return_never_rejected_and_the_next_takes_the_place(
    server, admin_client
):
    batch, study_id = study_batch(units=2, assignments=2)  # 4 places on Prolific
    failed = fail_the_check(server, study_id, "FAILER")
    code = completion_codes(batch)["FAILED_ATTENTION_CHECK"]
    assert failed["code"] == code
    row = submission_row(server, failed["session"])
    assert (row["status"], row["code"], row["return_requested"]) == ("AWAITING REVIEW", code, 1)
    assert "id='return'" in failed["landed"]  # the simulator lets them return it
    mine = Assignment.objects.get(channel_assignment_id=failed["session"])
    assert mine.status == Assignment.Status.RELEASED  # our place is free at once

    # the README's steps: sync, reject unverified, review (with a quality run that drops them)
    assert "1 ended by the study" in recruit("sync", str(batch.pk))
    sub = Submission.objects.get(ref=failed["session"])
    assert sub.ended == "comprehension check failed" and sub.review == Submission.Review.RETURN_ASKED
    recruit("reject-unverified", str(batch.pk), "--feedback", UNVERIFIED)
    run = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    AnnotatorDecision.objects.create(run=run, annotator=mine.annotator, keep=False)
    recruit("review", str(batch.pk), "--reject-feedback", REJECTION)
    decisions_apply(batch=batch, decisions=Decisions("test", {mine.annotator_id: False}), reject_feedback=REJECTION)
    row = submission_row(server, failed["session"])
    assert row["status"] == "AWAITING REVIEW" and row["rejection_category"] is None
    assert not admin(server, "GET", "/_local/requests?operation=submission_reject")

    # the review page shows them apart, with what the site holds
    page = admin_client.post(
        "/admin/annotation/batch/", {"action": "review_submissions", "_selected_action": [batch.pk]}, follow=True
    ).content.decode()
    assert 'id="ended-by-study"' in page and "ended by the study: comprehension check failed" in page
    assert pid("FAILER") in page.split('id="ended-by-study"')[1]
    batch_page = admin_client.get(f"/admin/annotation/batch/{batch.pk}/change/").content.decode()
    assert "1 ended by the study (never rejected)" in batch_page and "unverified submission(s) still" not in batch_page

    # they return it on Prolific, as asked: the place is free there too
    returned = failed["prolific_side"].post("/participant/return", {"submission_id": failed["session"]})
    assert returned.status == 200 and "RETURNED" in returned.text
    recruit("sync", str(batch.pk))
    assert Submission.objects.get(ref=failed["session"]).channel_status == "RETURNED"
    others = [pass_and_work(server, study_id, f"NEXT{n}") for n in range(4)]  # all 4 places, none refused
    units = sorted(Assignment.objects.get(channel_assignment_id=o["session"]).unit_id for o in others)
    assert units == sorted([u.pk for u in batch.units.all()] * 2)  # the failer's unit went to somebody else
    assert submission_row(server, failed["session"])["status"] == "RETURNED"

    # the report: listed under the study steps, not as an annotator with empty rows
    assert mine.annotator_id not in {r["annotator_id"] for r in annotation_rows(batch.project)}
    judged = quality_run_create(project=batch.project).annotator_decisions.values_list("annotator_id", flat=True)
    assert len(judged) == 4 and mine.annotator_id not in judged
    (steps,) = project_study_steps(batch.project)
    assert (steps.failed, steps.ended) == (1, 1)
    assert {p["annotator"]: p["ended"] for p in steps.people}[
        annotator_name(mine.annotator_id, pid("FAILER"))
    ] == "comprehension check failed"


def test_without_the_fix_reject_unverified_would_have_rejected_them(server):
    """The flag that made *Reject unverified* reject them is still there; what protects them is
    that their work is recorded as ended by the study."""
    batch, study_id = study_batch(units=1, assignments=1)
    failed = fail_the_check(server, study_id, "FAILER")
    recruit("sync", str(batch.pk))
    sub = Submission.objects.get(ref=failed["session"])
    assert not sub.verified and "completion token missing or wrong" in sub.problem
    report = reject_unverified(batch=batch, feedback=UNVERIFIED)
    assert report.rejected == 0 and submission_row(server, failed["session"])["status"] == "AWAITING REVIEW"


def test_a_screen_out_reward_screens_them_out_with_the_fixed_payment_and_frees_the_place_at_once(server):
    batch, study_id = study_batch(units=1, assignments=1, reward="2.00", screen_out_reward="0.20")
    (study,) = server.store.rows("SELECT data FROM studies")
    second = json.loads(study["data"])["completion_codes"][1]
    assert second["code_type"] == "FIXED_SCREENOUT"
    assert second["actions"] == [{"action": "FIXED_SCREEN_OUT_PAYMENT", "fixed_screen_out_reward": 20, "slots": 1}]
    started = take_part(server, study_id, "DECLINER", finish=False)
    started["platform"].post(started["work"], {"study_step": "consent", "consent": "no"})
    page = started["platform"].get(started["work"]).content.decode()
    assert "screens you out with a payment of £0.20" in page
    landed = started["prolific_side"].get(
        f"{server.completion_url}?cc={completion_codes(batch)['FAILED_ATTENTION_CHECK']}"
    )
    assert "id='screened-out'" in landed.text
    assert submission_row(server, started["session"])["status"] == "SCREENED OUT"
    assert admin(server, "GET", "/_local/state")["screened_out_paid"] == 20
    recruit("sync", str(batch.pk))
    recruit("reject-unverified", str(batch.pk), "--feedback", UNVERIFIED)
    sub = Submission.objects.get(ref=started["session"])
    assert (sub.ended, sub.channel_status, sub.review) == ("consent declined", "SCREENED OUT", "")
    assert submission_row(server, started["session"])["status"] == "SCREENED OUT"
    # the one place is free at once (the slot used up pauses the study, as Prolific does)
    assert server.store.rows("SELECT status FROM studies")[0]["status"] == "PAUSED"
    admin(server, "POST", "/_local/balance", {"balance": 1_000_000})
    get_channel("prolific").resume_unit(study_id)
    nxt = pass_and_work(server, study_id, "NEXT")
    assert Assignment.objects.get(channel_assignment_id=nxt["session"]).unit_id == batch.units.get().pk


def test_one_who_submits_without_a_code_after_declining_is_asked_to_return_by_sync(server):
    batch, study_id = study_batch(units=1, assignments=1)
    started = take_part(server, study_id, "NOCODE", finish=False)
    started["platform"].post(started["work"], {"study_step": "consent", "consent": "no"})
    admin(server, "POST", "/_local/complete", {"submission_id": started["session"], "code": ""})  # by hand
    assert submission_row(server, started["session"])["return_requested"] == 0
    report = recruit("sync", str(batch.pk))
    assert "1 asked to return now" in report
    asked = admin(server, "GET", "/_local/requests?operation=request_return")
    assert [r["status"] for r in asked] == [200]
    row = submission_row(server, started["session"])
    assert (row["status"], row["return_requested"]) == ("AWAITING REVIEW", 1)
    recruit("sync", str(batch.pk))
    reject_unverified(batch=batch, feedback=UNVERIFIED)
    assert len(admin(server, "GET", "/_local/requests?operation=request_return")) == 1  # asked once
    assert submission_row(server, started["session"])["status"] == "AWAITING REVIEW"


def test_one_stopped_by_live_quality_after_finished_work_is_approved_never_rejected(server):
    batch = prolific_batch(units=2, assignments=1)
    ItemFactory(project=batch.project, external_id="check-1")
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
    assert Participation.objects.get().stopped_at is not None
    back = page.split(f'href="{server.completion_url}?cc=')[1].split('"')[0]
    started["prolific_side"].get(f"{server.completion_url}?cc={back}")
    mine = Assignment.objects.get(channel_assignment_id=started["session"])
    finished = mine.status == Assignment.Status.SUBMITTED
    report = decisions_apply(
        batch=batch, decisions=Decisions("test", {mine.annotator_id: False}), reject_feedback=REJECTION
    )
    assert report.rejected == 0
    sub = Submission.objects.get(ref=started["session"])
    assert sub.ended == "stopped by live quality"
    row = submission_row(server, started["session"])
    if finished:  # the check came after the unit's item: the finished work is approved
        assert (report.ended_approved, row["status"]) == (1, "APPROVED")
    else:  # it came first: the unfinished work is asked back
        assert (report.sent_back, row["status"], row["return_requested"]) == (1, "AWAITING REVIEW", 1)
