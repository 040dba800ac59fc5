"""The client's retries against injected faults (nothing is patched: the server answers 429,
5xx, or takes effect and drops the answer, and urllib3's Retry decides), and the errors a
researcher sees for a bad token."""

import pytest

from annotation import prolific
from annotation.prolific.local import LocalProlificServer

from .conftest import admin, calls, draft, published, take_part


def test_429_is_retried_and_retry_after_is_honoured(client, server):
    admin(server, "POST", "/_local/faults", {"operation": "get_me", "kind": "429", "count": 2, "retry_after": 1})
    assert prolific.get_me(client).currency_code == "GBP"
    assert calls(server, "get_me") == [429, 429, 200]


def test_5xx_is_retried_for_a_safe_call(client, server):
    server.faults.add("list_submissions", "5xx", count=2, status=503, retry_after=0)
    study = published(client)
    assert prolific.list_submissions(client, study.id).results == ()
    assert calls(server, "list_submissions") == [503, 503, 200]


def test_persistent_faults_end_in_a_transient_error(client, server):
    server.faults.add("get_study", "5xx", count=10, status=502)
    with pytest.raises(prolific.ProlificUnavailableError) as caught:
        prolific.get_study(client, "a" * 24)
    assert caught.value.status == 502 and "Retry later" in str(caught.value)
    assert calls(server, "get_study") == [502] * 4  # the first try and 3 retries


def test_a_lost_answer_to_an_approval_is_retried_and_approves_once(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P1")
    server.faults.add("submission_transition", "lost")
    assert prolific.approve_submission(client, submission_id).status == "APPROVED"
    assert calls(server, "submission_transition") == [0, 200]


def test_a_lost_answer_to_publish_is_recovered_and_charged_once(client, server):
    study = prolific.create_study(client, draft())
    server.faults.add("study_transition", "lost")
    assert prolific.publish_study(client, study.id).status == "ACTIVE"
    assert calls(server, "study_transition") == [0, 400]  # the retry found it published
    assert admin(server, "GET", "/_local/state")["balance"] == 100_000 - 600


def test_create_is_not_blindly_retried_after_a_5xx(client, server):
    server.faults.add("create_study", "5xx", status=500)
    with pytest.raises(prolific.ProlificOutcomeUnknownError, match="Look before"):
        prolific.create_study(client, draft())
    assert calls(server, "create_study") == [500]


def test_create_is_retried_after_a_429(client, server):
    server.faults.add("create_study", "429", retry_after=0)
    prolific.create_study(client, draft())
    assert calls(server, "create_study") == [429, 201]


def test_a_lost_create_is_found_by_internal_name_not_made_twice(client, server):
    server.faults.add("create_study", "lost")
    with pytest.raises(prolific.ProlificOutcomeUnknownError):
        prolific.create_study(client, draft("batch-1"))
    server.faults.add("create_study", "lost")
    study = prolific.create_study_once(client, draft("batch-2"))
    assert study.internal_name == "batch-2"
    assert calls(server, "create_study") == [0, 0]
    assert admin(server, "GET", "/_local/state")["studies"] == 2
    assert prolific.create_study_once(client, draft("batch-1")).internal_name == "batch-1"
    assert admin(server, "GET", "/_local/state")["studies"] == 2


def test_a_lost_bonus_payment_is_not_paid_twice(client, server):
    study = published(client)
    take_part(server, study.id, "P1")
    bonus = prolific.set_up_bonuses(client, study.id, {"P1": 100})
    server.faults.add("pay_bonuses", "lost")
    with pytest.raises(prolific.ProlificOutcomeUnknownError, match="may have taken effect"):
        prolific.pay_bonuses(client, bonus.id)
    assert calls(server, "pay_bonuses") == [0]
    assert admin(server, "GET", "/_local/bonuses")[0]["times_paid"] == 1


def test_pay_is_not_idempotent_on_the_server(client, server):
    study = published(client)
    take_part(server, study.id, "P1")
    bonus = prolific.set_up_bonuses(client, study.id, {"P1": 100})
    prolific.pay_bonuses(client, bonus.id)
    prolific.pay_bonuses(client, bonus.id)  # what the caller's own record must prevent
    assert admin(server, "GET", "/_local/bonuses")[0]["times_paid"] == 2


def test_a_bad_token_tells_the_researcher_what_to_fix(server):
    client = prolific.make_client(api_url=server.url, token="wrong")
    with pytest.raises(prolific.ProlificAuthError) as caught:
        prolific.get_me(client)
    assert caught.value.status == 401
    assert "Invalid token" in str(caught.value)
    assert "Check PROLIFIC_API_TOKEN" in str(caught.value)
    assert calls(server, "get_me") == [401]  # not retried


def test_a_missing_token_is_refused_before_any_call():
    with pytest.raises(ValueError, match="PROLIFIC_API_TOKEN"):
        prolific.make_client(api_url="http://127.0.0.1:9", token="")


def test_an_unreachable_endpoint_is_a_transient_error():
    with LocalProlificServer() as gone:
        url, token = gone.url, gone.token
    client = prolific.make_client(api_url=url, token=token, max_retries=1, backoff_factor=0.01)
    with pytest.raises(prolific.ProlificUnavailableError) as caught:
        prolific.get_me(client)
    assert not isinstance(caught.value, prolific.ProlificOutcomeUnknownError)
    with pytest.raises(prolific.ProlificUnavailableError) as caught:
        prolific.create_study(client, draft())
    assert not isinstance(caught.value, prolific.ProlificOutcomeUnknownError)  # never sent
