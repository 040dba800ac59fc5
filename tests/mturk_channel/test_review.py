"""Review from the quality run: approve kept / reject dropped (verified work only), bonuses,
messages, blocks and the private qualification, all seen on the local endpoint."""

import json
from decimal import Decimal

import pytest

from annotation.channels import get_channel, request_token
from annotation.models import Assignment, Payment, PublishJob, Submission
from annotation.services.publish import publish_job_run
from quality.models import AnnotatorDecision, QualityRun
from quality.services.review import (
    ReviewError,
    review_apply,
    review_block,
    review_bonus,
    review_grant_qualification,
    review_message,
)

from .conftest import BASE_URL, do_work, hit_rows, local_assignment, mturk_batch

pytestmark = pytest.mark.django_db
FEEDBACK = "Your answers disagreed with the gold questions; see the instructions."


@pytest.fixture
def reviewed(mturk_settings, server):
    """A published batch with work from kept, dropped, undecided and forging workers."""
    batch = mturk_batch(units=3, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=3))
    u0, u1, u2 = batch.units.order_by("position")
    work = {
        "keep1": do_work(server, u0, "A1KEEP1"),
        "keep2": do_work(server, u1, "A1KEEP2"),
        "drop": do_work(server, u0, "A1DROP"),
        "guesser": do_work(server, u1, "A1GUESSER", token="forged"),  # kept by quality, but forged
        "undecided": do_work(server, u2, "A1UNDECIDED"),
        "orphan": do_work(server, u2, "A1NOTHING", ours=False),
    }
    run = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    for name, keep in (("keep1", True), ("keep2", True), ("drop", False), ("guesser", True)):
        AnnotatorDecision.objects.create(
            run=run,
            annotator=work[name].assignment.annotator,
            keep=keep,
            reasons=[] if keep else ["accuracy 0.20 below 0.50"],
        )
    return batch, work


def test_review_approves_kept_and_rejects_dropped_with_feedback(reviewed, server):
    batch, work = reviewed
    report = review_apply(batch=batch, reject_feedback=FEEDBACK, approve_feedback="Thank you!")
    assert (report.approved, report.rejected, report.failed) == (2, 1, {})
    assert report.skipped == {
        work["guesser"].mturk_id: "not verified: completion token missing or wrong",
        work["undecided"].mturk_id: "the quality run has no decision on this annotator",
        work["orphan"].mturk_id: "not verified: no saved answers on our side",
    }
    states = {
        name: (
            local_assignment(server, w.mturk_id)["status"],
            local_assignment(server, w.mturk_id)["requester_feedback"],
        )
        for name, w in work.items()
    }
    assert states == {
        "keep1": ("Approved", "Thank you!"),
        "keep2": ("Approved", "Thank you!"),
        "drop": ("Rejected", FEEDBACK),
        "guesser": ("Submitted", None),
        "undecided": ("Submitted", None),
        "orphan": ("Submitted", None),
    }
    assert server.store.balance() == Decimal("100.00") - 2 * Decimal("0.60")  # reward 0.50 + fee 0.10, twice
    ours = {name: Assignment.objects.get(pk=w.assignment.pk).status for name, w in work.items() if w.assignment}
    assert ours == {
        "keep1": "approved",
        "keep2": "approved",
        "drop": "rejected",
        "guesser": "submitted",
        "undecided": "submitted",
    }
    dropped = Submission.objects.get(assignment=work["drop"].assignment)
    assert (dropped.review, dropped.feedback, dropped.channel_status) == ("rejected", FEEDBACK, "Rejected")

    again = review_apply(batch=batch, reject_feedback=FEEDBACK)
    assert (again.approved, again.rejected) == (0, 0)
    assert server.store.balance() == Decimal("98.80")


def test_review_needs_feedback_and_a_finished_run(reviewed):
    batch, _ = reviewed
    with pytest.raises(ReviewError, match="feedback"):
        review_apply(batch=batch, reject_feedback="  ")
    QualityRun.objects.update(status=QualityRun.Status.FAILED)
    with pytest.raises(ReviewError, match="no finished quality run"):
        review_apply(batch=batch, reject_feedback=FEEDBACK)


def test_unpaid_approval_is_listed_as_failed(reviewed, server):
    batch, work = reviewed
    server.store.set_balance("0.60")  # covers one approval only
    report = review_apply(batch=batch, reject_feedback=FEEDBACK)
    assert report.approved == 1 and report.rejected == 1
    [(failed_id, reason)] = report.failed.items()
    assert failed_id == work["keep2"].mturk_id and "insufficient funds" in reason
    assert Submission.objects.get(assignment=work["keep2"].assignment).review == ""


def test_bonus_pays_each_kept_verified_worker_once(reviewed, server):
    batch, work = reviewed
    review_apply(batch=batch, reject_feedback=FEEDBACK)
    before = server.store.balance()
    report = review_bonus(batch=batch, amount="0.50", reason="Careful work", label="round 1 bonus")
    assert report.paid == 2 and report.failed == {}
    paid = [dict(r) for r in server.store.rows("SELECT * FROM bonuses ORDER BY id")]
    assert sorted((b["worker_id"], b["amount"], b["fee"]) for b in paid) == [
        ("A1KEEP1", "0.50", "0.10"),
        ("A1KEEP2", "0.50", "0.10"),
    ]
    assert before - server.store.balance() == Decimal("1.20")
    again = review_bonus(batch=batch, amount="0.50", reason="Careful work", label="round 1 bonus")
    assert again.paid == 0 and set(again.skipped) == {"A1KEEP1", "A1KEEP2"}
    assert len(server.store.rows("SELECT * FROM bonuses")) == 2 and Payment.objects.count() == 2
    assert before - server.store.balance() == Decimal("1.20")


def test_the_same_bonus_token_twice_pays_once_on_mturk(reviewed, server):
    _, work = reviewed
    channel, token = get_channel("mturk"), request_token("bonus", "test", "A1KEEP1")
    before = server.store.balance()
    for _ in range(2):
        channel.bonus(work["keep1"].assignment, amount="1.00", reason="Thanks", request_token=token)
    assert len(server.faults.requests("SendBonus")) == 2  # both calls reached MTurk...
    assert [r["amount"] for r in server.store.rows("SELECT amount FROM bonuses")] == ["1.00"]  # ...one paid
    assert before - server.store.balance() == Decimal("1.20")


def test_messages_go_out_in_calls_of_at_most_100(reviewed, server):
    batch, _ = reviewed
    workers = ["A1KEEP1", "A1KEEP2", "A1DROP"] + [f"A{n:04d}STRANGER" for n in range(247)]
    result = review_message(batch=batch, subject="New HITs", text="A second round is up.", worker_ids=workers)
    assert result.calls == 3
    sizes = [len(r["params"]["WorkerIds"]) for r in server.faults.requests("NotifyWorkers")]
    assert sizes == [100, 100, 50]
    assert len(result.failed) == 247  # never worked for us: MTurk refuses to message them
    assert sorted(r["worker_id"] for r in server.store.rows("SELECT worker_id FROM notifications")) == [
        "A1DROP",
        "A1KEEP1",
        "A1KEEP2",
    ]


def test_message_kept_workers_only(reviewed, server):
    batch, _ = reviewed
    result = review_message(batch=batch, subject="Thanks", text="Well done.", who="kept")
    assert result.calls == 1
    assert server.faults.requests("NotifyWorkers")[0]["params"]["WorkerIds"] == ["A1KEEP1", "A1KEEP2"]


def test_block_dropped_workers(reviewed, server):
    batch, _ = reviewed
    blocked, failed = review_block(batch=batch, reason="Random answers on gold questions")
    assert (blocked, failed) == (1, {})
    assert [(r["worker_id"], r["reason"]) for r in server.store.rows("SELECT * FROM blocks")] == [
        ("A1DROP", "Random answers on gold questions")
    ]


def test_grant_private_qualification_to_kept_workers_and_require_it(reviewed, server):
    batch, _ = reviewed
    type_id, count = review_grant_qualification(batch=batch)
    assert count == 2
    name = server.store.row("SELECT name FROM qualification_types WHERE id = ?", (type_id,))["name"]
    assert name == f"Trusted annotators of Reading study (project {batch.project.pk})"
    assert server.store.worker("A1KEEP1")["qualifications"][type_id] == 1
    assert server.store.worker("A1KEEP2")["qualifications"][type_id] == 1
    assert type_id not in server.store.worker("A1DROP")["qualifications"]
    assert type_id not in server.store.worker("A1GUESSER")["qualifications"]  # kept, but not verified
    assert review_grant_qualification(batch=batch)[0] == type_id  # found again by name, not duplicated

    follow_up = mturk_batch(units=1, project=batch.project, channel_settings={"require_private_qualification": True})
    publish_job_run(job=PublishJob.objects.create(batch=follow_up, base_url=BASE_URL, total=1))
    hit = hit_rows(server)[-1]
    requirements = json.loads(
        server.store.row("SELECT qualification_requirements FROM hit_types WHERE id = ?", (hit["hit_type_id"],))[0]
    )
    assert requirements[-1] == {
        "QualificationTypeId": type_id,
        "Comparator": "Exists",
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }


def test_unverified_submissions_are_rejected_before_mturk_approves_them(reviewed, server, admin_client):
    """Review never approves unverified work, but MTurk pays what is still Submitted when the
    auto-approval delay runs out: rejecting the forged and the orphan is the way to not pay."""
    from django.urls import reverse

    from annotation.services.review import ReviewError, reject_unverified

    batch, work = reviewed
    change = reverse("admin:annotation_batch_change", args=[batch.pk])
    review_apply(batch=batch, reject_feedback=FEEDBACK)  # syncs; 2 flagged stay Submitted
    page = " ".join(admin_client.get(change).content.decode().split())
    assert "<strong>2 unverified submission(s) still Submitted on MTurk</strong>: MTurk approves and pays" in page

    with pytest.raises(ReviewError, match="needs feedback"):
        reject_unverified(batch=batch, feedback=" ")
    told = "We found no work saved on our site for this HIT."
    report = reject_unverified(batch=batch, feedback=told)
    assert (report.approved, report.rejected, report.failed) == (0, 2, {})
    assert {name: local_assignment(server, w.mturk_id)["status"] for name, w in work.items()} == {
        "keep1": "Approved",
        "keep2": "Approved",
        "drop": "Rejected",
        "guesser": "Rejected",
        "undecided": "Submitted",
        "orphan": "Rejected",  # the undecided is verified: left to the researcher
    }
    assert local_assignment(server, work["orphan"].mturk_id)["requester_feedback"] == told
    assert Assignment.objects.get(pk=work["guesser"].assignment.pk).status == "rejected"
    assert reject_unverified(batch=batch, feedback=told).rejected == 0  # nothing left to do
    assert "unverified submission(s) still Submitted" not in admin_client.get(change).content.decode()


def test_reject_unverified_from_the_admin_and_the_shell(reviewed, server, admin_client):
    from io import StringIO

    from django.core.management import call_command
    from django.urls import reverse

    batch, work = reviewed
    response = admin_client.post(
        reverse("admin:annotation_batch_changelist"),
        {
            "action": "review_submissions",
            "_selected_action": [batch.pk],
            "apply": "1",
            "operation": "reject_unverified",
            "who": "all",
            "reject_feedback": "No work of yours was saved.",
        },
    )
    assert response.status_code == 302
    assert local_assignment(server, work["guesser"].mturk_id)["status"] == "Rejected"
    out = StringIO()
    call_command("mturk", "reject-unverified", str(batch.pk), "--feedback", "again", stdout=out)
    assert out.getvalue().strip() == "Unverified submissions: 0 approved, 0 rejected"
