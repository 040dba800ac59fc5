"""botocore's own retries against injected throttling and faults (nothing is patched: the
server answers ThrottlingException / ServiceFault and botocore decides to retry)."""

import pytest

from annotation import mturk
from annotation.mturk.local import LocalMTurkServer

from .conftest import admin


def calls(server, operation):
    return [c["error"] for c in admin(server, "GET", f"/_local/requests?operation={operation}")]


def test_throttling_is_retried_until_it_succeeds(mturk_client, server):
    admin(
        server, "POST", "/_local/faults", {"operation": "GetAccountBalance", "count": 2, "error": "ThrottlingException"}
    )
    assert mturk.get_account_balance(mturk_client).available == 100
    assert calls(server, "GetAccountBalance") == ["ThrottlingException", "ThrottlingException", ""]


def test_throttling_beyond_max_attempts_fails_clearly(server):
    mturk_client = mturk.make_client("local", local_url=server.url, max_attempts=2)
    server.faults.add("GetAccountBalance", "ThrottlingException", count=5)
    with pytest.raises(mturk.MTurkServiceError) as caught:
        mturk.get_account_balance(mturk_client)
    error = caught.value
    assert (error.code, error.attempts, error.operation) == ("ThrottlingException", 2, "GetAccountBalance")
    assert str(error).startswith("MTurk GetAccountBalance failed after 2 attempts: ThrottlingException")
    assert len(calls(server, "GetAccountBalance")) == 2
    assert server.faults.rules()[0]["count"] == 3


def test_adaptive_mode_retries_throttling_too(server):
    mturk_client = mturk.make_client("local", local_url=server.url, retry_mode="adaptive", max_attempts=3)
    server.faults.add("ListAssignmentsForHIT", "ThrottlingException", count=1)
    server.faults.add("GetHIT", "ThrottlingException", count=1)
    with pytest.raises(mturk.MTurkRequestError, match="does not exist"):
        mturk.get_hit(mturk_client, "3NOHIT")  # throttled once, then the real answer
    assert calls(server, "GetHIT") == ["ThrottlingException", "RequestError"]


def test_service_fault_is_retried(mturk_client, server):
    server.faults.add("CreateWorkerBlock", "ServiceFault", count=1)
    mturk.create_worker_block(mturk_client, "A1SPAM", reason="spam")
    assert calls(server, "CreateWorkerBlock") == ["ServiceFault", ""]
    assert [b["worker_id"] for b in admin(server, "GET", "/_local/blocks")] == ["A1SPAM"]


def test_persistent_service_fault_is_a_transient_error(mturk_client, server):
    server.faults.add("*", "ServiceFault", count=3, message="We are down")
    with pytest.raises(mturk.MTurkServiceError) as caught:
        mturk.get_account_balance(mturk_client)
    assert caught.value.code == "ServiceFault"
    assert caught.value.attempts == 3
    assert caught.value.message.startswith("We are down")
    assert mturk.get_account_balance(mturk_client).available == 100  # the rule is used up


def test_request_errors_are_not_retried(mturk_client, server):
    server.faults.add("GetAccountBalance", "RequestError", turk_error_code="AWS.MechanicalTurk.Nope")
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.get_account_balance(mturk_client)
    assert (caught.value.turk_error_code, caught.value.attempts) == ("AWS.MechanicalTurk.Nope", 1)
    assert calls(server, "GetAccountBalance") == ["RequestError"]


def test_an_unreachable_endpoint_is_a_transient_error():
    with LocalMTurkServer() as gone:
        url = gone.url
    mturk_client = mturk.make_client("local", local_url=url, max_attempts=1, connect_timeout=1)
    with pytest.raises(mturk.MTurkServiceError) as caught:
        mturk.get_account_balance(mturk_client)
    assert caught.value.code == "EndpointConnectionError"


def test_fault_rules_over_http(server):
    rule = admin(
        server,
        "POST",
        "/_local/faults",
        {"operation": "GetHIT", "error": "ServiceFault", "count": 4, "delay_seconds": 0.1},
    )
    assert rule["count"] == 4 and rule["error"] == "ServiceFault"
    assert admin(server, "GET", "/_local/faults")[0]["operation"] == "GetHIT"
    admin(server, "DELETE", "/_local/faults")
    assert admin(server, "GET", "/_local/faults") == []
