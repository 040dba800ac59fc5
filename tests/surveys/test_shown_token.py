"""surveys.flow.shown_token / shown_at: a page's signed note of when it was rendered."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from surveys import flow


def test_a_token_gives_back_when_its_page_was_rendered():
    before = time.time()
    token = flow.shown_token(42, "post")
    after = time.time()
    shown = flow.shown_at(token, 42, "post")
    assert isinstance(shown, datetime) and shown.tzinfo == UTC
    # the moment the token was made, as datetime keeps it (whole microseconds)
    assert round(before, 6) <= round(shown.timestamp(), 6) <= round(after, 6)


def test_a_token_says_nothing_for_another_response_or_page():
    token = flow.shown_token(42, "post")
    assert flow.shown_at(token, 43, "post") is None
    assert flow.shown_at(token, 42, "pre") is None


def test_an_altered_or_forged_token_says_nothing():
    from django.core import signing

    token = flow.shown_token(42, "post")
    value, _, signature = token.rpartition(":")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    assert flow.shown_at(f"{value}:{flipped}", 42, "post") is None
    earlier = signing.dumps([42, "post", time.time() - 600], salt="another salt")  # ten minutes sooner, not ours
    assert flow.shown_at(earlier, 42, "post") is None
    for junk in ["", ":", "x" * 200, value, signing.dumps("not a list", salt=flow.SHOWN_SALT)]:
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
