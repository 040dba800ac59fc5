"""surveys.csrf_masks: Django's CSRF secrets and masks, drawn from os.urandom in one call."""
from __future__ import annotations

from collections import Counter

import pytest
from django.middleware import csrf
from django.test import Client, RequestFactory
from scipy.stats import chisquare

from surveys import csrf_masks
from surveys.csrf_masks import new_csrf_string


def test_django_draws_its_csrf_strings_here_and_masks_with_them():
    assert csrf._get_new_csrf_string is new_csrf_string
    assert csrf._mask_cipher_secret is csrf_masks.mask_cipher_secret
    assert csrf._unmask_cipher_token is csrf_masks.unmask_cipher_token


def _djangos_mask(secret: str, mask: str) -> str:
    """django.middleware.csrf._mask_cipher_secret (Django 5.2) with a given mask."""
    chars = csrf.CSRF_ALLOWED_CHARS
    pairs = zip((chars.index(x) for x in secret), (chars.index(x) for x in mask))
    return mask + "".join(chars[(x + y) % len(chars)] for x, y in pairs)


def test_masks_and_unmasks_as_django_does_character_for_character(monkeypatch):
    strings = iter([new_csrf_string() for _ in range(2000)])
    for _ in range(1000):
        secret, mask = next(strings), next(strings)
        monkeypatch.setattr(csrf, "_get_new_csrf_string", lambda: mask)
        token = csrf_masks.mask_cipher_secret(secret)
        assert token == _djangos_mask(secret, mask)
        assert csrf_masks.unmask_cipher_token(token) == csrf_masks._django_unmask(token) == secret
    # every pair of characters, both ways
    chars = csrf.CSRF_ALLOWED_CHARS
    for m in chars:
        mask = m * csrf.CSRF_SECRET_LENGTH
        monkeypatch.setattr(csrf, "_get_new_csrf_string", lambda: mask)
        secret = (chars * 2)[: csrf.CSRF_SECRET_LENGTH * 2]
        for part in (secret[:32], secret[32:64]):
            token = csrf_masks.mask_cipher_secret(part)
            assert token == _djangos_mask(part, mask) and csrf_masks.unmask_cipher_token(token) == part


def test_a_token_outside_the_alphabet_unmasks_as_django_would():
    odd = "é" + "a" * 63
    with pytest.raises(ValueError):  # Django's own: str.index finds no "é"
        csrf_masks.unmask_cipher_token(odd)


def test_a_string_has_djangos_length_and_alphabet():
    for _ in range(200):
        drawn = new_csrf_string()
        assert len(drawn) == csrf.CSRF_SECRET_LENGTH and set(drawn) <= set(csrf.CSRF_ALLOWED_CHARS)


def test_characters_are_uniform_over_the_alphabet_and_positions():
    """200,000 characters: their counts against the uniform distribution (chi-square, 61 degrees
    of freedom); a mapping that favoured some bytes (b % 62 over all 256 byte values, say) fails."""
    strings = [new_csrf_string() for _ in range(6250)]
    counts = Counter("".join(strings))
    observed = [counts[c] for c in csrf.CSRF_ALLOWED_CHARS]
    assert chisquare(observed).pvalue > 1e-6
    first = Counter(s[0] for s in strings)  # the first position is no different
    assert chisquare([first[c] for c in csrf.CSRF_ALLOWED_CHARS]).pvalue > 1e-6
    assert len(set(strings)) == len(strings)


def test_a_biased_mapping_would_fail_that_check():
    import os

    biased = "".join(csrf.CSRF_ALLOWED_CHARS[b % 62] for b in os.urandom(200_000))
    counts = Counter(biased)
    assert chisquare([counts[c] for c in csrf.CSRF_ALLOWED_CHARS]).pvalue < 1e-6


def test_a_masked_token_unmasks_to_the_cookies_secret_and_differs_every_time():
    request = RequestFactory().get("/")
    tokens = {csrf.get_token(request) for _ in range(20)}
    secret = request.META["CSRF_COOKIE"]
    assert len(tokens) == 20
    assert all(len(t) == csrf.CSRF_TOKEN_LENGTH and csrf._unmask_cipher_token(t) == secret for t in tokens)


@pytest.mark.django_db
def test_csrf_still_refuses_a_post_without_the_pages_token(client):
    from annotation.services.batches import batch_create, invite_link_create
    from tests.factories import ItemFactory, ProjectFactory

    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    link = invite_link_create(batch=batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1))
    checked = Client(enforce_csrf_checks=True)
    url = f"/i/{link.token}/"
    page = checked.get(url).content.decode()
    assert checked.post(url, {"csrfmiddlewaretoken": "x" * 64}).status_code == 403
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    assert checked.post(url, {"csrfmiddlewaretoken": token}).status_code == 302
