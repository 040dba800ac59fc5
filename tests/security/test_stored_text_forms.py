"""Issue 37: the admin's project form reads its settings through the one loader
(`annotation.validators.LoaderDecoder`): a lone surrogate or NUL (in a key or a value), NaN or
deep nesting is the field's error, instead of a 500 when the page or the database meets them."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Project
from tests.factories import TeamFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "settings",
    [
        json.dumps({"annotator_kappa_field": "a\x00b"}),
        json.dumps({"annotator_kappa_field": "a\ud800"}),
        json.dumps({"x\ud800": 1}),
        json.dumps({"x\x00": 1}),
        '{"too_fast_seconds": NaN}',
        "[" * 20_000 + "]" * 20_000,
    ],
    ids=["NUL value", "surrogate value", "surrogate key", "NUL key", "NaN", "deep"],
)
def test_the_admin_refuses_unstorable_text_in_settings(admin_client, settings) -> None:
    form = {
        "name": "R",
        "team": TeamFactory().pk,
        "kind": "recam",
        "language": "en",
        "instructions": "",
        "settings": settings,  # escaped as JSON (\\ud800, \\u0000), as a browser would post it
    }
    page = admin_client.post(reverse("admin:annotation_project_add"), form)
    assert page.status_code == 200 and not Project.objects.exists()
    text = page.content.decode()
    assert "Enter a valid JSON." in text
