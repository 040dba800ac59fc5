"""Annotator access keys and invite tokens (issue 20, item 7; SECURITY.md states the lengths):
drawn by `secrets`, 192 bits each, and found by a unique-index lookup in the database, so no
Python comparison of a secret can leak its prefix through timing."""

from __future__ import annotations

import base64

import pytest

from annotation.models import Annotator, InviteLink
from annotation.models.work import new_key

FIELDS = [(Annotator, "access_key"), (InviteLink, "token")]


def bits(key: str) -> int:
    return len(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))) * 8


def test_keys_carry_192_random_bits():
    keys = {new_key() for _ in range(1000)}
    assert len(keys) == 1000
    assert {bits(key) for key in keys} == {192}
    assert {len(key) for key in keys} == {32}


@pytest.mark.parametrize(("model", "name"), FIELDS)
def test_each_secret_is_a_unique_indexed_column_with_that_default(model, name):
    field = model._meta.get_field(name)
    assert field.unique and field.default is new_key and not field.editable
    assert field.max_length >= len(new_key())
