"""Issue 36, item 4 on MTurk: a worker whose part the study ended (consent declined, the
comprehension check failed) is told to return the HIT, which frees its place for the next worker;
the README's sync and review steps (including *Reject unverified*) never reject them; one who
submits the HIT anyway is approved (MTurk cannot pay less than the reward and would approve it
itself when the auto-approval delay runs out; docs/study-checks.md). Against the local MTurk
endpoint through boto3, our pages and the endpoint's worker site."""

from __future__ import annotations

from io import StringIO
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Submission
from annotation.selectors.responses import annotation_rows
from annotation.services.publish import publish_job_run
from annotation.services.review import Decisions, decisions_apply
from quality.models import AnnotatorDecision, QualityRun
from tests.mturk.conftest import Browser, admin

from .conftest import BASE_URL, local_assignment, mturk_batch
from .test_publish import STUDY

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mturk_settings")]
FEEDBACK = "We found no work saved on our site for this HIT."


def recruit(*args: str) -> str:
    out = StringIO()
    call_command("recruit", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def batch(server):
    from annotation.models import PublishJob

    batch = mturk_batch(units=1, assignments=1)  # one HIT with one place
    batch.study = STUDY
    batch.save(update_fields=["study"])
    job = publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    assert job.status == "done"
    return batch


def open_hit(server, batch, worker: str) -> tuple[Client, str, str]:
    """The worker accepts the HIT on the endpoint and MTurk opens our page: (our client, the work
    URL, MTurk's assignmentId)."""
    unit = batch.units.get()
    mturk_id = admin(server, "POST", "/_local/accept", {"hit_id": unit.channel_ref, "worker_id": worker})[
        "assignment_id"
    ]
    query = {"assignmentId": mturk_id, "hitId": unit.channel_ref, "workerId": worker, "turkSubmitTo": server.url}
    platform = Client()
    opened = platform.get(reverse("surveys:mturk") + "?" + urlencode(query))
    assert opened.status_code == 302, opened.content[:300]
    return platform, opened["Location"], mturk_id


def fail_the_check(server, batch, worker: str) -> str:
    platform, work, mturk_id = open_hit(server, batch, worker)
    platform.post(work, {"study_step": "consent", "consent": "yes"})
    for attempt in (1, 2):
        platform.post(work, {"study_step": "comprehension", "attempt": str(attempt), "many": "yes"})
    page = platform.get(work).content.decode()
    assert 'id="study-ended"' in page and "Please return this HIT on Mechanical Turk" in page
    assert "externalSubmit" not in page  # no way to submit it from our page
    return mturk_id


def test_a_worker_who_fails_the_check_returns_the_hit_is_never_rejected_and_the_next_gets_the_unit(server, batch):
    mturk_id = fail_the_check(server, batch, "A1FAILER")
    mine = Assignment.objects.get(channel_assignment_id=mturk_id)
    assert mine.status == Assignment.Status.RELEASED
    worker_site = Browser(server.url)
    worker_site.sign_in("A1FAILER")
    assert worker_site.post("/worker/return", {"assignmentId": mturk_id}).status == 200
    assert local_assignment(server, mturk_id)["status"] == "Returned"

    recruit("sync", str(batch.pk))
    recruit("reject-unverified", str(batch.pk), "--feedback", FEEDBACK)
    run = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    AnnotatorDecision.objects.create(run=run, annotator=mine.annotator, keep=False)
    recruit("review", str(batch.pk), "--reject-feedback", "Your ratings did not agree with the others.")
    assert local_assignment(server, mturk_id)["status"] == "Returned"
    assert not admin(server, "GET", "/_local/requests?operation=RejectAssignment")

    platform, work, next_id = open_hit(server, batch, "A1NEXT")  # the HIT's one place is free again
    nxt = Assignment.objects.get(channel_assignment_id=next_id)
    assert nxt.unit_id == mine.unit_id and nxt.status == Assignment.Status.ACTIVE
    assert mine.annotator_id not in {r["annotator_id"] for r in annotation_rows(batch.project)}


def test_a_worker_who_declines_and_submits_anyway_is_approved_never_rejected(server, batch):
    platform, work, mturk_id = open_hit(server, batch, "A1DECLINER")
    platform.post(work, {"study_step": "consent", "consent": "no"})
    mine = Assignment.objects.get(channel_assignment_id=mturk_id)
    # MTurk's own page lets a worker submit whatever: here nothing of ours
    admin(server, "POST", "/_local/submit", {"assignment_id": mturk_id, "fields": {"comment": "done"}})
    recruit("sync", str(batch.pk))
    sub = Submission.objects.get(ref=mturk_id)
    assert (sub.verified, sub.ended, sub.channel_status) == (False, "consent declined", "Submitted")
    assert "1 approved" in recruit("reject-unverified", str(batch.pk), "--feedback", FEEDBACK)
    assert local_assignment(server, mturk_id)["status"] == "Approved"
    sub.refresh_from_db()
    assert sub.review == Submission.Review.APPROVED and "does not count against you" in sub.feedback
    mine.refresh_from_db()
    assert mine.status == Assignment.Status.RELEASED  # approved on MTurk, but it holds no place of ours
    again = decisions_apply(batch=batch, decisions=Decisions("test", {mine.annotator_id: False}), reject_feedback="No.")
    assert (again.approved, again.rejected, again.ended_approved) == (0, 0, 0)
    assert not admin(server, "GET", "/_local/requests?operation=RejectAssignment")
