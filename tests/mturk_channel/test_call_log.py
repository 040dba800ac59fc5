"""MTurk's calls go to the same call log as every recruiting site's (boto3's event hooks): one
entry per call, on the batch, with MTurk's error; no credentials kept."""

from __future__ import annotations

import pytest

from annotation.models import ChannelCall, PublishJob
from annotation.services.publish import publish_job_run

from .conftest import BASE_URL, mturk_batch

pytestmark = pytest.mark.django_db


def test_publishing_records_every_mturk_call_on_the_batch(mturk_settings, server):
    batch = mturk_batch(units=2)
    server.faults.add(
        "CreateHITWithHITType",
        "RequestError",
        message="The question is not acceptable",
        turk_error_code="AWS.MechanicalTurk.InvalidQuestion",
    )
    job = PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=2)
    publish_job_run(job=job)
    calls = ChannelCall.objects.filter(batch=batch, channel="mturk")
    created = calls.filter(operation="CreateHITWithHITType").order_by("id")
    assert [c.outcome for c in created] == [ChannelCall.Outcome.REFUSED, ChannelCall.Outcome.OK]
    assert created[0].status == 400 and "The question is not acceptable" in created[0].error
    assert (
        created[1].request.startswith("POST CreateHITWithHITType {")
        and '"UniqueRequestToken": "***"' in created[1].request
    )
    assert calls.filter(operation="GetAccountBalance", outcome=ChannelCall.Outcome.OK).exists()
    assert not calls.filter(request__contains="local-mturk-secret").exists()
