"""Client construction and the pure helpers (no server needed)."""

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from annotation import mturk
from annotation.mturk import qualifications as q
from annotation.mturk.client import LOCAL_CREDENTIALS, _cached_client
from annotation.mturk.questions import EXTERNAL_QUESTION_NS, answer_xml, parse_external_question


@pytest.mark.parametrize(
    "endpoint, url",
    [
        ("production", "https://mturk-requester.us-east-1.amazonaws.com"),
        ("sandbox", "https://mturk-requester-sandbox.us-east-1.amazonaws.com"),
        ("local", "http://127.0.0.1:9999"),
    ],
)
def test_make_client_picks_endpoint_region_and_retries(endpoint, url):
    mturk_client = mturk.make_client(
        endpoint,
        local_url="http://127.0.0.1:9999/",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
        retry_mode="adaptive",
        max_attempts=7,
    )
    assert mturk_client.meta.endpoint_url == url
    assert mturk_client.meta.region_name == "us-east-1"
    assert mturk_client.meta.config.retries == {"mode": "adaptive", "total_max_attempts": 7}
    assert mturk_client.meta.service_model.service_name == "mturk"


def test_local_client_gets_dummy_credentials_and_needs_a_url():
    mturk_client = mturk.make_client("local", local_url="http://127.0.0.1:9999")
    credentials = mturk_client._request_signer._credentials
    assert (credentials.access_key, credentials.secret_key) == LOCAL_CREDENTIALS
    with pytest.raises(ValueError, match="local_url"):
        mturk.make_client("local")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"endpoint": "live"}, "unknown MTurk endpoint 'live'; known: local, sandbox, production"),
        ({"endpoint": "sandbox", "retry_mode": "legacy"}, "retry_mode"),
        ({"endpoint": "sandbox", "max_attempts": 0}, "max_attempts"),
    ],
)
def test_make_client_refuses_bad_configuration(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mturk.make_client(**kwargs)


def test_client_from_settings_reads_settings_at_call_time(settings):
    _cached_client.cache_clear()
    settings.MTURK_ENDPOINT = "sandbox"
    settings.MTURK_RETRY_MODE = "adaptive"
    settings.MTURK_MAX_ATTEMPTS = 4
    settings.AWS_ACCESS_KEY_ID, settings.AWS_SECRET_ACCESS_KEY = "AKIDSETTINGS", "s3cret"
    first = mturk.client_from_settings()
    assert first.meta.endpoint_url == "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
    assert first.meta.config.retries == {"mode": "adaptive", "total_max_attempts": 4}
    assert first._request_signer._credentials.access_key == "AKIDSETTINGS"
    assert mturk.client_from_settings() is first  # cached for the same configuration
    settings.MTURK_ENDPOINT = "local"
    settings.MTURK_LOCAL_URL = "http://127.0.0.1:8765"
    assert mturk.client_from_settings().meta.endpoint_url == "http://127.0.0.1:8765"


def test_settings_default_to_the_local_endpoint():
    from django.conf import settings

    assert settings.MTURK_ENDPOINT in mturk.ENDPOINTS
    assert settings.MTURK_RETRY_MODE in ("standard", "adaptive")


def test_preview_urls():
    assert mturk.preview_url("production", "3ABC") == "https://worker.mturk.com/mturk/preview?groupId=3ABC"
    assert mturk.preview_url("sandbox", "3ABC") == "https://workersandbox.mturk.com/mturk/preview?groupId=3ABC"
    assert mturk.preview_url("local", "3ABC", local_url="http://h:1/") == "http://h:1/mturk/preview?groupId=3ABC"


def test_unique_request_token_is_deterministic_and_fits():
    token = mturk.unique_request_token("publish", 42, 1)
    assert token == mturk.unique_request_token("publish", 42, 1)
    assert token != mturk.unique_request_token("publish", 42, 2)
    assert len(token) == 64


def test_external_question_xml_escapes_the_url():
    url = "https://annotate.example.org/mturk/?project=7&batch=2&x=<y>"
    xml = mturk.external_question_xml(url, 700)
    assert "<ExternalURL>https://annotate.example.org/mturk/?project=7&amp;batch=2&amp;x=&lt;y&gt;</ExternalURL>" in xml
    root = ET.fromstring(xml)
    assert root.tag == f"{{{EXTERNAL_QUESTION_NS}}}ExternalQuestion"
    assert root.findtext(f"{{{EXTERNAL_QUESTION_NS}}}ExternalURL") == url
    assert root.findtext(f"{{{EXTERNAL_QUESTION_NS}}}FrameHeight") == "700"
    assert parse_external_question(xml) == (url, 700)


@pytest.mark.parametrize(
    "url, height",
    [
        ("javascript:alert(1)", 0),
        ("/relative/path", 0),
        ("https://a.org/x y", 0),
        ("https://a.org/", -1),
        ("https://a.org/", 10001),
    ],
)
def test_external_question_xml_refuses_bad_input(url, height):
    with pytest.raises(ValueError):
        mturk.external_question_xml(url, height)


def test_answers_round_trip_through_question_form_answers():
    xml = answer_xml([("token", "a&b<c>"), ("choice", "1"), ("choice", "3"), ("ctl", "x\x00y")])
    assert "a&amp;b&lt;c&gt;" in xml
    assert mturk.parse_answer_xml(xml) == {"token": "a&b<c>", "choice": "1|3", "ctl": "xy"}
    assert mturk.parse_answer_xml("") == {}


def test_qualification_builders():
    assert q.locale_requirement() == {
        "QualificationTypeId": "00000000000000000071",
        "Comparator": "In",
        "LocaleValues": [{"Country": c} for c in ("US", "GB", "CA", "AU", "NZ", "IE")],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }
    assert q.approval_rate_requirement()["IntegerValues"] == [90]
    assert q.approval_rate_requirement()["Comparator"] == "GreaterThan"
    assert q.approval_rate_requirement()["QualificationTypeId"] == "000000000000000000L0"
    assert q.hits_approved_requirement(500) == {
        "QualificationTypeId": "00000000000000000040",
        "Comparator": "GreaterThanOrEqualTo",
        "IntegerValues": [500],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }
    assert q.masters_requirement("production")["QualificationTypeId"] == "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"
    assert q.masters_requirement("sandbox")["QualificationTypeId"] == "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"
    assert q.private_requirement("3PRIV", actions_guarded="Accept") == {
        "QualificationTypeId": "3PRIV",
        "Comparator": "Exists",
        "ActionsGuarded": "Accept",
    }
    assert q.uses_masters([q.locale_requirement(), q.masters_requirement("sandbox")])
    with pytest.raises(ValueError):
        q.locale_requirement(["USA"])
    with pytest.raises(ValueError):
        q.check_requirements([q.locale_requirement()] * 11)


@pytest.mark.parametrize(
    "reward, n, masters, cost",
    [
        ("0.50", 3, False, "0.60"),  # 20 %
        ("0.50", 10, False, "0.70"),  # +20 % from 10 assignments
        ("1.00", 10, True, "1.45"),  # +5 % Masters
        ("0.01", 1, False, "0.02"),  # the fee is at least one cent
    ],
)
def test_assignment_cost(reward, n, masters, cost):
    assert mturk.assignment_cost(reward, max_assignments=n, masters=masters) == Decimal(cost)


def test_bonus_cost():
    assert mturk.bonus_cost("1.00") == Decimal("1.20")
    assert mturk.bonus_cost("0.02") == Decimal("0.03")
