"""manage.py recruit on a Prolific batch: the same operations as on MTurk, through the channel."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation import prolific
from annotation.channels import get_channel
from annotation.models import PublishJob, Submission
from quality.models import AnnotatorDecision, QualityRun
from tests.prolific.conftest import REJECTION

from .conftest import pid, prolific_batch, submission_row, take_part

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


def recruit(*args) -> str:
    out = StringIO()
    call_command("recruit", *args, stdout=out)
    return out.getvalue()


def test_recruit_estimates_publishes_syncs_reviews_and_expires_a_study(
    server, settings, django_capture_on_commit_callbacks
):
    settings.PUBLIC_BASE_URL = "https://annotate.example.org"
    batch = prolific_batch(units=2, assignments=1)
    estimate = recruit("estimate", str(batch.pk))
    assert estimate.startswith("2 unit(s) x 1 assignment(s) x (£") and "; balance £" in estimate
    with django_capture_on_commit_callbacks(execute=True):  # the command runs in autocommit
        assert "Job #" in recruit("publish", str(batch.pk), "--yes")
    assert list(PublishJob.objects.values_list("status", "done")) == [("done", 2)]
    study_id = batch.units.first().channel_ref
    assert prolific.get_study(get_channel("prolific").client(), study_id).status == "ACTIVE"
    kept, dropped = take_part(server, study_id, "KEPT"), take_part(server, study_id, "DROPPED")
    assert "2 submission(s): 2 verified, 0 flagged" in recruit("sync", str(batch.pk))
    run = QualityRun.objects.create(project=batch.project, status=QualityRun.Status.DONE)
    for session, keep in ((kept["session"], True), (dropped["session"], False)):
        annotator = Submission.objects.get(ref=session).assignment.annotator
        assert annotator.external_id in (pid("KEPT"), pid("DROPPED"))
        AnnotatorDecision.objects.create(run=run, annotator=annotator, keep=keep)
    out = recruit("review", str(batch.pk), "--reject-feedback", REJECTION)
    assert "1 approved, 1 rejected" in out
    assert submission_row(server, kept["session"])["status"] == "APPROVED"
    assert submission_row(server, dropped["session"])["status"] == "REJECTED"
    assert recruit("expire", str(batch.pk)).strip() == "Closed 1 posting(s)."  # one study for the batch
    assert prolific.get_study(get_channel("prolific").client(), study_id).status in ("AWAITING REVIEW", "COMPLETED")


def test_an_operation_the_site_does_not_have_is_refused_with_its_reason(server):
    batch = prolific_batch(units=1, assignments=1)
    get_channel("prolific").publish(batch, base_url="https://annotate.example.org")
    with pytest.raises(CommandError, match="cannot extend"):
        recruit("extend", str(batch.pk), "--hours", "24")
