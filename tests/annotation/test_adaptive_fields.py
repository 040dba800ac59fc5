"""Adaptive redundancy's settings and its labels saved, through the REST API and the batch admin."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Batch
from annotation.services.adaptive import estimates_update
from tests.annotation.adaptive_helpers import adaptive_batch, label, person
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_api():
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_the_api_makes_an_adaptive_batch_and_shows_the_labels_saved(staff_api):
    project = ProjectFactory()
    ItemFactory.create_batch(3, project=project)
    body = {"project": project.pk, "name": "b", "items_per_unit": 1, "assignments_per_unit": 4}
    settings = {"adaptive": True, "min_annotators": 2, "max_annotators": 3, "target_confidence": 0.9}
    response = staff_api.post("/api/batches/", {**body, **settings, "min_competence": 0.25}, format="json")
    assert response.status_code == 201, response.content
    shown = response.json()
    assert {k: shown[k] for k in settings} == settings and shown["min_competence"] == 0.25
    assert shown["labels"] == {"labels_given": 0, "fixed_labels": 12, "items_settled": 0, "saved_on_settled": 0}
    plain = staff_api.post("/api/batches/", body, format="json").json()
    assert plain["adaptive"] is False and plain["labels"] is None


def test_the_api_refuses_a_minimum_above_the_maximum(staff_api):
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    body = {"project": project.pk, "name": "b", "adaptive": True, "min_annotators": 4, "max_annotators": 3}
    response = staff_api.post("/api/batches/", body, format="json")
    assert response.status_code == 400
    assert "min_annotators (4) cannot be above max_annotators (3)" in str(response.json())
    assert not Batch.objects.exists()


def test_the_batch_page_shows_labels_saved_and_refuses_a_minimum_above_the_maximum(admin_client):
    batch = adaptive_batch(2, target_confidence=0.6)
    for _ in range(3):
        label(person(batch), batch, 1)
    estimates_update(batch=batch)
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    page = admin_client.get(url).content.decode()
    assert "3 human labels so far; fixed redundancy would cost 10 (5 an item)." in page
    assert "1 item settled, 3 labels saved on them." in page
    form = {
        "name": batch.name,
        "status": batch.status,
        "release_after_minutes": 60,
        "handout": batch.handout,
        "adaptive": "on",
        "min_annotators": 4,
        "max_annotators": 3,
        "target_confidence": 0.9,
        "channel_settings": "{}",
        "study": "",
    }
    refused = admin_client.post(url, form)
    assert refused.status_code == 200 and "cannot be below the minimum" in refused.content.decode()
    assert Batch.objects.get(pk=batch.pk).min_annotators == 2
