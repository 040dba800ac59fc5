"""Integer filters of the API: an id beyond 64 bits, a negative or a non-number is a 400 naming
the parameter, never a 500 (SQLite's driver overflows on such an id)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import Item
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    api = APIClient()
    api.force_authenticate(get_user_model().objects.create_superuser("lead", "lead@example.org", "a-long-password"))
    return api


@pytest.mark.parametrize("path", ["/api/items/", "/api/batches/"])
@pytest.mark.parametrize("value", ["36893488147419103233", "9223372036854775808", "-1", "0", "x", "1e3", "١"])
def test_an_id_filter_out_of_range_is_a_400(client, path, value):
    response = client.get(path, {"project": value})
    assert response.status_code == 400
    assert "project" in response.json()


@pytest.mark.parametrize("path", ["/api/items/", "/api/batches/"])
def test_the_largest_id_is_accepted_and_finds_nothing(client, path):
    response = client.get(path, {"project": str(2**63 - 1)})
    assert response.status_code == 200 and response.json()["results"] == []


@pytest.mark.parametrize("path", ["/api/projects/{}/", "/api/items/{}/", "/api/batches/{}/"])
def test_an_id_in_the_path_out_of_range_is_a_404(client, path):
    assert client.get(path.format("36893488147419103233")).status_code == 404


def test_an_upload_named_with_nul_is_stored_without_it(client):
    project = ProjectFactory(name="p", kind="recam", language="en")
    record = (
        b'{"id": "a", "article": "x", "question": "@placeholder", "option_0": "a", "option_1": "b", '
        b'"option_2": "c", "option_3": "d", "option_4": "e"}\n'
    )
    upload = SimpleUploadedFile("bad\x00name.jsonl", record)
    response = client.post(f"/api/projects/{project.pk}/import/", {"file": upload}, format="multipart")
    assert response.status_code == 200, response.content
    assert "\x00" not in Item.objects.get(project=project).source
