"""surveys.flow.shown_token / shown_at: a page's signed note of when it was rendered."""
from __future__ import annotations

import time
from datetime import datetime, timezone

from surveys import flow


def test_a_token_gives_back_when_its_page_was_rendered():
    before = time.time()
    token = flow.shown_token(42, "post")
    shown = flow.shown_at(token, 42, "post")
    assert isinstance(shown, datetime) and shown.tzinfo == timezone.utc
    assert before - 0.001 <= shown.timestamp() <= time.time() + 0.001  # to the millisecond


def test_a_token_says_nothing_for_another_response_or_page():
    token = flow.shown_token(42, "post")
    assert flow.shown_at(token, 43, "post") is None
    assert flow.shown_at(token, 42, "pre") is None


def test_an_altered_or_forged_token_says_nothing():
    token = flow.shown_token(42, "post")
    stamp, mac = token.split(":")
    earlier = f"{float(stamp) - 600:.3f}"  # claims the page was shown ten minutes sooner
    assert flow.shown_at(f"{earlier}:{mac}", 42, "post") is None
    assert flow.shown_at(f"{stamp}:{mac[:-1]}{'0' if mac[-1] != '0' else '1'}", 42, "post") is None
    for junk in ["", ":", "nan:" + mac, "x" * 200, stamp]:
        assert flow.shown_at(junk, 42, "post") is None


def test_a_token_signed_with_another_key_says_nothing_unless_that_key_is_a_fallback(settings):
    settings.SECRET_KEY = "old-" + "k" * 50
    token = flow.shown_token(7, "pre")
    settings.SECRET_KEY = "new-" + "k" * 50
    assert flow.shown_at(token, 7, "pre") is None
    settings.SECRET_KEY_FALLBACKS = ["old-" + "k" * 50]  # a key being rotated out
    assert flow.shown_at(token, 7, "pre") is not None


def test_a_token_older_than_the_limit_says_nothing(monkeypatch):
    token = flow.shown_token(7, "pre")
    later = time.time() + flow.SHOWN_MAX_AGE + 60
    monkeypatch.setattr(flow.time, "time", lambda: later)
    assert flow.shown_at(token, 7, "pre") is None


def test_the_mac_is_djangos_salted_hmac_for_any_key(settings):
    from django.utils.crypto import salted_hmac

    for secret in ["k" * 50, "another-" + "x" * 50, "ünïcode-" + "y" * 40]:
        for response_id, page, stamp in [(1, "pre", "1790000000.000"), (987654, "summary_span", "12.5")]:
            expected = salted_hmac(flow.SHOWN_SALT, f"{response_id}:{page}:{stamp}", secret=secret,
                                   algorithm="sha256").hexdigest()
            assert flow._shown_mac(response_id, page, stamp, secret) == expected
