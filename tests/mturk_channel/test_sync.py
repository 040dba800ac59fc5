"""Sync: MTurk's assignments matched with what we saved; forged submissions are flagged."""

import pytest

from annotation.channels import get_channel
from annotation.models import Assignment, PublishJob, Submission
from annotation.services.publish import publish_job_run
from annotation.services.sync import batch_sync, open_batches_sync

from .conftest import BASE_URL, do_work, mturk_batch, record_ours

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(mturk_settings, server):
    batch = mturk_batch(units=3, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=3))
    return batch


def unit(batch, position):
    return batch.units.get(position=position)


def record(work) -> Submission:
    return Submission.objects.get(assignment=work.assignment)


def test_genuine_submission_is_verified_and_its_state_follows_mturk(published, server):
    good = do_work(server, unit(published, 0), "A1GOOD")
    Assignment.objects.filter(pk=good.assignment.pk).update(status=Assignment.Status.ACTIVE)  # page not saved yet
    report = batch_sync(batch=published)
    assert (report.hits, report.listed, report.verified, report.flagged, report.updated) == (3, 1, 1, 0, 1)
    row = record(good)
    assert (row.verified, row.problem, row.channel_status) == (True, "", "Submitted")
    assert (row.participant_ref, row.posting_ref, row.ref) == ("A1GOOD", unit(published, 0).channel_ref, good.mturk_id)
    assert Assignment.objects.get(pk=good.assignment.pk).status == Assignment.Status.SUBMITTED
    assert get_channel("mturk").verify_submission(good.assignment) == (True, "")

    server.store.execute("UPDATE assignments SET status = 'Approved' WHERE id = ?", (good.mturk_id,))
    report = batch_sync(batch=published)
    assert report.updated == 1 and record(good).channel_status == "Approved"
    assert Assignment.objects.get(pk=good.assignment.pk).status == Assignment.Status.APPROVED
    again = batch_sync(batch=published)  # nothing changed: nothing to do
    assert (again.verified, again.updated) == (1, 0) and Submission.objects.count() == 1


def test_forged_submissions_are_flagged(published, server):
    good = do_work(server, unit(published, 0), "A1GOOD")
    bad_token = do_work(server, unit(published, 0), "A1GUESSER", token="forged-token")
    no_token = do_work(server, unit(published, 1), "A1SKIPPER", token="")
    # a forger replays a real worker's assignmentId with their own worker id on our page
    real = do_work(server, unit(published, 1), "A1REAL", ours=False)
    forged_worker = record_ours(unit(published, 1), "A1FORGER", real.mturk_id)
    # a forger posts our page with an assignmentId MTurk never issued
    unknown = record_ours(unit(published, 2), "A1GHOST", "3NOSUCHASSIGNMENTEVERISSUED")
    # our unit 2 says the work is there, but MTurk has it on unit 0's HIT
    elsewhere = do_work(server, unit(published, 0), "A1WANDERER", ours=False)
    wrong_hit = record_ours(unit(published, 2), "A1WANDERER", elsewhere.mturk_id)
    # MTurk has a submission we never saved anything for
    orphan = do_work(server, unit(published, 2), "A1NOTHING", ours=False)
    # submitted on MTurk with the right token, but nothing of our pages was answered
    unfinished = do_work(server, unit(published, 1), "A1HALFWAY", complete=False)

    report = batch_sync(batch=published)
    assert (report.listed, report.verified, report.flagged) == (7, 1, 7)
    problems = {
        row.ref + ":" + (row.assignment.annotator.external_id if row.assignment else "-"): (row.verified, row.problem)
        for row in Submission.objects.select_related("assignment__annotator")
    }
    assert problems[f"{good.mturk_id}:A1GOOD"] == (True, "")
    assert problems[f"{bad_token.mturk_id}:A1GUESSER"] == (False, "completion token missing or wrong")
    assert problems[f"{no_token.mturk_id}:A1SKIPPER"] == (False, "completion token missing or wrong")
    assert problems[f"{real.mturk_id}:A1FORGER"] == (
        False,
        "participant mismatch: the channel says A1REAL, our annotator is A1FORGER",
    )
    assert problems["3NOSUCHASSIGNMENTEVERISSUED:A1GHOST"] == (False, "the channel does not know this work")
    assert problems[f"{elsewhere.mturk_id}:A1WANDERER"][1].startswith(
        f"posting mismatch: the channel says {unit(published, 0).channel_ref}"
    )
    assert problems[f"{orphan.mturk_id}:-"] == (False, "no saved answers on our side")
    assert problems[f"{unfinished.mturk_id}:A1HALFWAY"] == (False, "no saved answers on our side")
    assert len(problems) == 8
    # MTurk's state is never copied onto work that is not that worker's, nor onto unfinished work
    assert Assignment.objects.get(pk=unfinished.assignment.pk).status == Assignment.Status.ACTIVE
    ghost = Submission.objects.get(assignment=unknown)
    assert (ghost.channel_status, ghost.participant_ref, ghost.posting_ref) == ("", "", "")
    assert Submission.objects.get(assignment=wrong_hit).posting_ref == unit(published, 0).channel_ref

    channel = get_channel("mturk")
    assert channel.verify_submission(forged_worker)[0] is False
    assert channel.verify_submission(unknown) == (False, "the channel does not know this work")
    assert channel.verify_submission(bad_token.assignment) == (False, "completion token missing or wrong")


def test_half_finished_work_is_flagged(mturk_settings, server):
    batch = mturk_batch(units=1, items_per_unit=2)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    work = do_work(server, unit(batch, 0), "A1HALFWAY")
    work.assignment.responses.filter(position=1).update(completed_at=None)
    batch_sync(batch=batch)
    assert (record(work).verified, record(work).problem) == (False, "not every item was completed on our side")


def test_an_orphan_becomes_matched_once_our_answers_arrive(published, server):
    late = do_work(server, unit(published, 0), "A1LATE", ours=False)
    batch_sync(batch=published)
    assert Submission.objects.get().problem == "no saved answers on our side"
    mine = record_ours(unit(published, 0), "A1LATE", late.mturk_id)
    batch_sync(batch=published)
    row = Submission.objects.get()
    assert row.assignment == mine and row.verified


def test_periodic_sync_covers_open_mturk_batches_only(published, server):
    do_work(server, unit(published, 0), "A1GOOD")
    closed = mturk_batch(units=1, project=published.project)
    closed.status = "closed"
    closed.save()
    reports = open_batches_sync()
    assert [(r.batch, r.verified) for r in reports] == [(published.pk, 1)]


def test_unreachable_hit_is_reported_and_the_others_go_on(published, server):
    do_work(server, unit(published, 2), "A1GOOD")
    server.faults.add(
        "ListAssignmentsForHIT",
        "RequestError",
        message="no such HIT",
        turk_error_code="AWS.MechanicalTurk.HITDoesNotExist",
    )
    report = batch_sync(batch=published)
    assert (
        list(report.errors) == [unit(published, 0).channel_ref]
        and "no such HIT" in report.errors[unit(published, 0).channel_ref]
    )
    assert report.verified == 1


def test_sync_pages_through_more_than_100_assignments_of_a_hit(mturk_settings, server):
    batch = mturk_batch(units=1, assignments=101)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=1))
    only = unit(batch, 0)
    works = [do_work(server, only, f"A{n:03d}WORKER") for n in range(101)]
    server.faults.clear_requests()
    report = batch_sync(batch=batch)
    assert (report.listed, report.verified, report.flagged) == (101, 101, 0)
    pages = server.faults.requests("ListAssignmentsForHIT")
    assert len(pages) == 2 and "NextToken" in pages[1]["params"]
    assert set(Submission.objects.values_list("ref", flat=True)) == {w.mturk_id for w in works}
