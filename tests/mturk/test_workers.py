"""Messages, blocks, qualifications and the balance through boto3 against the local endpoint."""

from decimal import Decimal

import pytest

from annotation import mturk
from annotation.mturk.local import work
from annotation.mturk.local.work import WorkerError

from .conftest import admin, make_hit


def test_get_account_balance(mturk_client, server):
    assert mturk.get_account_balance(mturk_client) == mturk.Balance(Decimal("100.00"), Decimal("0.00"))
    admin(server, "POST", "/_local/balance", {"available": "12.34"})
    assert mturk.get_account_balance(mturk_client).available == Decimal("12.34")


def test_notify_workers_splits_into_calls_of_100(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=300)
    ids = [f"A{i:04d}W" for i in range(250)]
    for worker_id in ids[:249]:
        work.accept(server.store, hit.hit_id, worker_id)  # the last one never worked for us
    result = mturk.notify_workers(
        mturk_client, worker_ids=ids + ids[:5], subject="New batch", message="A new batch of passages is up."
    )
    calls = admin(server, "GET", "/_local/requests?operation=NotifyWorkers")
    assert [len(c["params"]["WorkerIds"]) for c in calls] == [100, 100, 50]
    assert [w for c in calls for w in c["params"]["WorkerIds"]] == ids
    assert result.calls == 3
    assert [(f.worker_id, f.code) for f in result.failures] == [("A0249W", "HardFailure")]
    assert len(admin(server, "GET", "/_local/notifications")) == 249


def test_the_server_refuses_more_than_100_ids(server, mturk_client):
    with pytest.raises(mturk.MTurkRequestError, match="1 to 100 ids"):
        mturk.workers.call(
            mturk_client, "NotifyWorkers", WorkerIds=[f"A{i}" for i in range(101)], Subject="s", MessageText="m"
        )


def test_notify_checks_subject_and_message(mturk_client):
    with pytest.raises(ValueError):
        mturk.notify_workers(mturk_client, worker_ids=["A1"], subject="x" * 201, message="m")
    with pytest.raises(ValueError):
        mturk.notify_workers(mturk_client, worker_ids=["A1"], subject="s", message="")


def test_block_stops_a_worker_from_accepting(mturk_client, server):
    hit = make_hit(mturk_client)
    mturk.create_worker_block(mturk_client, "A1SPAMMER", reason="Random answers on gold items")
    with pytest.raises(WorkerError, match="blocked"):
        work.accept(server.store, hit.hit_id, "A1SPAMMER")
    assert admin(server, "GET", "/_local/blocks")[0]["reason"] == "Random answers on gold items"
    mturk.delete_worker_block(mturk_client, "A1SPAMMER")
    assert work.accept(server.store, hit.hit_id, "A1SPAMMER")


def test_private_qualification_gates_the_hit(mturk_client, server):
    qualification = mturk.create_qualification_type(
        mturk_client, name="Trusted ReCAM annotators", description="Passed our pilot"
    )
    assert qualification.status == "Active"
    again = mturk.create_qualification_type(mturk_client, name="Trusted ReCAM annotators", description="x")
    assert again.qualification_type_id == qualification.qualification_type_id
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.create_qualification_type(
            mturk_client, name="Trusted ReCAM annotators", description="x", reuse_existing=False
        )
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.QualificationTypeAlreadyExists"

    hit = make_hit(mturk_client, requirements=[mturk.private_requirement(qualification.qualification_type_id)])
    with pytest.raises(WorkerError, match="qualification requirements"):
        work.accept(server.store, hit.hit_id, "A1TRUSTED")
    mturk.associate_qualification_with_worker(
        mturk_client, qualification_type_id=qualification.qualification_type_id, worker_id="A1TRUSTED"
    )
    assert work.accept(server.store, hit.hit_id, "A1TRUSTED")
    assert admin(server, "GET", "/_local/workers/A1TRUSTED")["qualifications"][qualification.qualification_type_id] == 1


def test_system_qualifications_cannot_be_granted(mturk_client):
    with pytest.raises(mturk.MTurkRequestError, match="cannot be assigned"):
        mturk.associate_qualification_with_worker(
            mturk_client, qualification_type_id=mturk.masters_qualification_id("local"), worker_id="A1X"
        )
