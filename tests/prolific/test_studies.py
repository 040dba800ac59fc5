"""Studies through the real client against the local endpoint: create, find by internal name
(idempotent publishing), list with pages, publish/pause/start/stop, changes and errors."""

import pytest

from annotation import prolific

from .conftest import TASK_URL, admin, draft, published


def test_create_sends_every_field_the_platform_needs(client):
    filters = (
        prolific.select_filter(prolific.FIRST_LANGUAGE, ["0"]),
        prolific.select_filter(prolific.COUNTRY_OF_RESIDENCE, ["0", "1"]),
        prolific.range_filter(prolific.APPROVAL_RATE, lower=95),
        prolific.range_filter(prolific.APPROVED_SUBMISSIONS, lower=100),
        prolific.select_filter(prolific.CUSTOM_BLOCKLIST, ["spammer1"]),
    )
    study = prolific.create_study(client, draft(filters=filters, metadata="batch:1"))
    assert study.status == "UNPUBLISHED"
    assert len(study.id) == 24 and int(study.id, 16) >= 0
    assert study.external_study_url == (
        f"{TASK_URL}?batch=1&PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
        f"&SESSION_ID={{{{%SESSION_ID%}}}}"
    )
    assert (study.reward, study.total_available_places, study.estimated_completion_time) == (150, 3, 10)
    assert study.filters == filters
    assert study.device_compatibility == ("desktop",)
    assert study.code_of(prolific.COMPLETED) == "C1DONE"
    assert study.code_of(prolific.FAILED_ATTENTION_CHECK) == "C2FAIL"
    failed = [c for c in study.completion_codes if c["code"] == "C2FAIL"][0]
    assert failed["actions"][0]["action"] == "REQUEST_RETURN"
    assert prolific.get_study(client, study.id) == study


def test_create_study_once_finds_the_study_made_earlier(client, server):
    first = prolific.create_study_once(client, draft("batch-7"))
    again = prolific.create_study_once(client, draft("batch-7"))
    other = prolific.create_study_once(client, draft("batch-8"))
    assert again.id == first.id and other.id != first.id
    assert admin(server, "GET", "/_local/state")["studies"] == 2
    assert prolific.find_study(client, internal_name="batch-7").id == first.id
    assert prolific.find_study(client, internal_name="batch-9") is None


def test_create_study_once_needs_an_internal_name(client):
    with pytest.raises(ValueError, match="internal_name"):
        prolific.create_study_once(client, draft(""))


def test_listing_studies_follows_the_pages(client):
    made = [prolific.create_study(client, draft(f"batch-{n}")).id for n in range(5)]
    assert [s.id for s in prolific.iter_studies(client, page_size=2)] == made
    prolific.publish_study(client, made[1])
    assert [s.id for s in prolific.iter_studies(client, state="ACTIVE")] == [made[1]]


def test_publish_pause_start_stop(client, server):
    study = published(client)
    assert study.status == "ACTIVE"
    assert admin(server, "GET", "/_local/state")["balance"] == 100_000 - 600
    assert prolific.pause_study(client, study.id).status == "PAUSED"
    assert prolific.start_study(client, study.id).status == "ACTIVE"
    assert prolific.stop_study(client, study.id).status == "COMPLETED"
    with pytest.raises(prolific.ProlificValidationError, match="Cannot PAUSE a study whose status is COMPLETED"):
        prolific.pause_study(client, study.id)


def test_publishing_twice_is_harmless(client, server):
    study = published(client)
    again = prolific.publish_study(client, study.id)
    assert again.status == "ACTIVE"
    assert admin(server, "GET", "/_local/state")["balance"] == 100_000 - 600  # charged once


def test_publishing_with_a_short_balance_says_to_top_up(client, server):
    admin(server, "POST", "/_local/balance", {"balance": 500})
    study = prolific.create_study(client, draft())
    with pytest.raises(prolific.ProlificInsufficientFundsError) as caught:
        prolific.publish_study(client, study.id)
    assert "Top up the workspace balance in the Prolific app" in str(caught.value)
    assert prolific.get_study(client, study.id).status == "UNPUBLISHED"


def test_places_only_grow_after_publishing(client, server):
    study = published(client)
    assert prolific.update_study(client, study.id, total_available_places=5).total_available_places == 5
    assert admin(server, "GET", "/_local/state")["balance"] == 100_000 - 600 - 400
    with pytest.raises(prolific.ProlificValidationError) as caught:
        prolific.update_study(client, study.id, total_available_places=2)
    assert caught.value.fields == {"total_available_places": ("Places can only be increased once published.",)}
    with pytest.raises(prolific.ProlificValidationError, match="cannot change reward"):
        prolific.update_study(client, study.id, reward=500)


def test_validation_errors_name_the_field(client):
    codes = tuple(prolific.standard_codes("SAME", "SAME"))
    with pytest.raises(prolific.ProlificValidationError) as caught:
        prolific.create_study(client, draft(completion_codes=codes, reward=0))
    error = caught.value
    assert error.status == 400
    assert error.fields["completion_codes"] == ("Completion code 'SAME' is used twice.",)
    assert error.fields["reward"] == ("Ensure this value is a whole number of at least 1.",)
    assert str(error).startswith("Prolific create_study failed (HTTP 400): Prolific refused the request: ")
    assert "completion_codes: Completion code 'SAME' is used twice." in str(error)


def test_drafts_without_the_placeholders_are_refused_before_sending(client, server):
    with pytest.raises(ValueError, match=r"lacks \{\{%SESSION_ID%\}\}"):
        prolific.create_study(
            client,
            draft(external_study_url=f"{TASK_URL}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"),
        )
    assert admin(server, "GET", "/_local/state")["studies"] == 0


def test_delete_only_drafts_and_not_found(client):
    study = prolific.create_study(client, draft())
    prolific.delete_study(client, study.id)
    with pytest.raises(prolific.ProlificNotFoundError) as caught:
        prolific.get_study(client, study.id)
    assert "Check the id, and that PROLIFIC_API_TOKEN belongs to the workspace" in str(caught.value)
    live = published(client)
    with pytest.raises(prolific.ProlificValidationError, match="Only unpublished"):
        prolific.delete_study(client, live.id)


def test_account_me_workspace_balance_filters(client):
    me = prolific.get_me(client)
    assert me.currency_code == "GBP" and me.available_balance == 100_000
    (workspace,) = prolific.list_workspaces(client)
    balance = prolific.get_balance(client, workspace.id)
    assert (balance.available_balance, balance.currency_code) == (100_000, "GBP")
    ids = {f["filter_id"] for f in prolific.list_filters(client)}
    assert {
        prolific.FIRST_LANGUAGE,
        prolific.COUNTRY_OF_RESIDENCE,
        prolific.APPROVAL_RATE,
        prolific.CUSTOM_ALLOWLIST,
    } <= ids


def test_client_from_settings(settings, server):
    settings.PROLIFIC_API_URL = server.url
    settings.PROLIFIC_API_TOKEN = server.token
    client = prolific.client_from_settings()
    assert client is prolific.client_from_settings()
    assert prolific.get_me(client).currency_code == "GBP"
