"""manage.py mturk: estimate, publish, sync, review from the shell."""

import pytest
from django.core.management import CommandError, call_command

from annotation.models import PublishJob, Submission
from annotation.services import review as channel_review
from quality.models import AnnotatorDecision, QualityRun

from .conftest import do_work, hit_rows, local_assignment, mturk_batch

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
    assert f"quality run #{run_.pk}" in out and "1 approved, 1 rejected" in out
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
    run_ = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    assert channel_review.decisions_for(batch).source.startswith(f"quality run #{run_.pk} of ")
