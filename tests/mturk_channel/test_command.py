"""manage.py recruit (and its older name, manage.py mturk): estimate, publish, sync, review,
extend, add places and expire from the shell, on an MTurk batch."""

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Batch, PublishJob, Submission
from annotation.mturk.local import records
from annotation.services import review as channel_review
from annotation.services.publish import publish_job_run
from quality.models import AnnotatorDecision, QualityRun
from tests.factories import ProjectFactory

from .conftest import BASE_URL, do_work, hit_rows, local_assignment, mturk_batch

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command("mturk", *args, stdout=out)
    return out.getvalue()


def test_estimate_publish_sync_review(mturk_settings, server, settings, django_capture_on_commit_callbacks):
    settings.PUBLIC_BASE_URL = "https://annotate.example.org"
    batch = mturk_batch(units=2, assignments=3)
    assert run("estimate", str(batch.pk)).strip() == (
        "2 unit(s) x 3 assignment(s) x ($0.50 reward + $0.10 fee) = $3.60 (rewards $3.00, fees $0.60); balance $100.00"
    )
    with django_capture_on_commit_callbacks(execute=True):  # the command runs in autocommit
        run("publish", str(batch.pk), "--yes")
    with django_capture_on_commit_callbacks(execute=True):
        out = run("publish", str(batch.pk), "--yes")  # again: nothing left to publish
    assert "0 unit(s) x 3 assignment(s)" in out and "2 of 2 units published" in out
    assert list(PublishJob.objects.order_by("pk").values_list("status", "done")) == [("done", 2), ("done", 2)]
    assert len(hit_rows(server)) == 2
    good = do_work(server, batch.units.get(position=0), "A1GOOD")
    bad = do_work(server, batch.units.get(position=1), "A1BAD")
    assert "2 submission(s): 2 verified, 0 flagged" in run("sync", str(batch.pk))
    run_ = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    AnnotatorDecision.objects.create(run=run_, annotator=good.assignment.annotator, keep=True)
    AnnotatorDecision.objects.create(run=run_, annotator=bad.assignment.annotator, keep=False)
    out = run("review", str(batch.pk), "--reject-feedback", "Answers did not match the passage.")
    assert f"quality run {run_.number} of " in out and "1 approved, 1 rejected" in out
    assert local_assignment(server, good.mturk_id)["status"] == "Approved"
    assert local_assignment(server, bad.mturk_id)["status"] == "Rejected"
    assert set(Submission.objects.values_list("review", flat=True)) == {"approved", "rejected"}


def test_publish_refuses_a_short_balance(mturk_settings, server):
    server.store.set_balance("1.00")
    batch = mturk_batch(units=2)
    with pytest.raises(CommandError, match=r"balance \$1.00 cannot cover the estimated \$3.60"):
        run("publish", str(batch.pk), "--yes")
    assert hit_rows(server) == []


def test_review_takes_the_quality_decisions_registered_by_the_quality_app(mturk_settings, server):
    """annotation never imports quality: the quality app registers its decisions when ready."""
    from quality.services import review

    batch = mturk_batch(units=1)
    assert review.latest_decisions in channel_review._SOURCES
    with pytest.raises(channel_review.ReviewError, match="no quality decisions"):
        channel_review.decisions_for(batch)  # registered, but the project has no run yet
    other = QualityRun.objects.create(project=ProjectFactory(), status=QualityRun.Status.DONE)
    run_ = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    assert run_.number == 1 and run_.pk > other.pk  # its id counts the other project's run too
    # the run as the project's report numbers it, not its id across projects (issue 38)
    assert channel_review.decisions_for(batch).source.startswith("quality run 1 of ")


def recruit(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command("recruit", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def published(mturk_settings, server):
    batch = mturk_batch(units=2, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=2))
    return batch


def test_recruit_extends_adds_places_and_expires_the_hits(published, server):
    batch = published
    before = {row["id"]: row for row in hit_rows(server)}
    assert recruit("extend", str(batch.pk), "--hours", "48", "--units", "0").strip() == "Extended 1 posting(s)."
    after = {row["id"]: row for row in hit_rows(server)}
    first = batch.units.get(position=0).channel_ref
    assert after[first]["expiration"] > before[first]["expiration"]
    assert len({r["expiration"] for r in after.values()} - {r["expiration"] for r in before.values()}) == 1
    out = recruit("add-places", str(batch.pk), "--number", "2", "--label", "block 1", "--yes")
    assert "charged on approval" in out and "Added places to 2 posting(s)." in out
    recruit("add-places", str(batch.pk), "--number", "2", "--label", "block 1", "--yes")  # the same label: no more
    assert {r["max_assignments"] for r in hit_rows(server)} == {5}
    assert recruit("expire", str(batch.pk)).strip() == "Closed 2 posting(s)."
    # closed: the endpoint no longer offers them (its own HITStatus, not our clock)
    assert "Assignable" not in {records.status(server.store, row) for row in hit_rows(server)}


def test_add_places_without_yes_asks_and_adds_nothing_on_no(published, server, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    with pytest.raises(CommandError, match="Nothing added"):
        recruit("add-places", str(published.pk), "--number", "1", "--label", "x")
    assert {r["max_assignments"] for r in hit_rows(server)} == {3}


def test_the_mturk_command_is_the_recruit_command_under_its_older_name(published):
    assert run("expire", str(published.pk)) == "Closed 2 posting(s).\n"


def test_recruit_refuses_a_batch_on_invite_links(db):
    batch = mturk_batch(units=1)
    Batch.objects.filter(pk=batch.pk).update(channel="invite")
    with pytest.raises(CommandError, match="nothing to publish"):
        recruit("estimate", str(batch.pk))
