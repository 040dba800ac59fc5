"""Issue 37: the admin's JSON fields (a project's settings, a batch's channel settings) are read
through the one loader (`annotation.validators.LoaderDecoder`): a lone surrogate or NUL (in a key
or a value), NaN or deep nesting is the field's error, instead of a 500 when the page or the
database meets them."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Batch, Project
from annotation.services.batches import batch_create
from tests.factories import ItemFactory, ProjectFactory, TeamFactory

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


@pytest.mark.parametrize("text", ['{"x": "\\ud800"}', '{"x\\u0000": 1}', '{"x": NaN}', "[" * 20_000 + "]" * 20_000])
def test_the_batch_forms_read_channel_settings_by_the_same_rules(admin_client, text) -> None:
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    form = {"project": project.pk, "name": "b", "release_after_minutes": 45, "channel": "invite"}
    added = admin_client.post(reverse("admin:annotation_batch_add"), {**form, "channel_settings": text})
    assert added.status_code == 200 and "Enter a valid JSON." in added.content.decode()
    assert not Batch.objects.exists()
    batch = batch_create(project=project, name="b", items_per_unit=2)
    change = {"name": "b", "status": "open", "release_after_minutes": 60, "channel_settings": text}
    change |= {f"{inline}-{n}_FORMS": "0" for inline in ("invites", "adjudication") for n in ("TOTAL", "INITIAL")}
    changed = admin_client.post(reverse("admin:annotation_batch_change", args=[batch.pk]), change)
    assert changed.status_code == 200 and "Enter a valid JSON." in changed.content.decode()
    assert Batch.objects.get().channel_settings == {}
