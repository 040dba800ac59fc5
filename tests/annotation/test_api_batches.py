"""Batches, progress and invite links through the REST API."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Assignment, Batch, InviteLink
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_api():
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def project():
    project = ProjectFactory()
    ItemFactory.create_batch(7, project=project)
    return project


def test_create_batch_of_all_items_reports_progress(staff_api, project):
    response = staff_api.post(
        "/api/batches/",
        {
            "project": project.pk,
            "name": "b",
            "items_per_unit": 3,
            "assignments_per_unit": 2,
            "release_after_minutes": 30,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["progress"] == {"units": 3, "slots": 6, "active": 0, "submitted": 0, "released": 0}
    assert body["release_after_minutes"] == 30 and body["channel"] == "invite"
    batch = Batch.objects.get(pk=body["id"])
    assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    assert staff_api.get(f"/api/batches/{batch.pk}/").json()["progress"]["active"] == 1


def test_create_batch_with_chosen_items_in_order(staff_api, project):
    ids = list(project.items.order_by("-id").values_list("id", flat=True))[:4]
    response = staff_api.post(
        "/api/batches/", {"project": project.pk, "name": "b", "items": ids, "items_per_unit": 2}, format="json"
    )
    assert response.status_code == 201, response.content
    batch = Batch.objects.get(pk=response.json()["id"])
    handed_out = [
        ui.item_id for unit in batch.units.order_by("position") for ui in unit.unit_items.order_by("position")
    ]
    assert handed_out == ids


def test_items_of_another_project_or_listed_twice_are_refused(staff_api, project):
    stranger = ItemFactory()
    mine = project.items.first()
    bad = staff_api.post("/api/batches/", {"project": project.pk, "name": "b", "items": [stranger.pk]}, format="json")
    assert bad.status_code == 404 and str(stranger.pk) in bad.json()["detail"]  # not an item of this project
    twice = staff_api.post(
        "/api/batches/", {"project": project.pk, "name": "b", "items": [mine.pk, mine.pk]}, format="json"
    )
    assert twice.status_code == 400
    assert not Batch.objects.exists()


def test_project_without_items_gets_a_clear_error(staff_api):
    response = staff_api.post("/api/batches/", {"project": ProjectFactory().pk, "name": "b"}, format="json")
    assert response.status_code == 409 and "import items" in response.json()["detail"]


def test_invite_links_are_absolute_and_listed(staff_api, project):
    batch = batch_create(project=project, name="b")
    created = staff_api.post(f"/api/batches/{batch.pk}/invites/", {"label": "lab", "max_annotators": 5}, format="json")
    assert created.status_code == 201, created.content
    invite = InviteLink.objects.get()
    assert created.json()["url"] == f"http://testserver/i/{invite.token}/"
    assert invite.label == "lab" and invite.max_annotators == 5
    listed = staff_api.get(f"/api/batches/{batch.pk}/invites/").json()
    assert [i["url"] for i in listed] == [created.json()["url"]]


def test_batch_list_query_count_does_not_grow(staff_api, project, django_assert_max_num_queries):
    for n in range(2):
        batch_create(project=project, name=f"b{n}")
    with django_assert_max_num_queries(4):
        small = staff_api.get("/api/batches/")
    for n in range(8):
        batch_create(project=project, name=f"c{n}")
    with django_assert_max_num_queries(4):
        large = staff_api.get(f"/api/batches/?project={project.pk}")
    assert small.json()["count"] == 2 and large.json()["count"] == 10


def test_release_abandoned_on_demand(staff_api, project):
    batch = batch_create(project=project, name="b", release_after_minutes=10)
    assignment = assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    Assignment.objects.filter(pk=assignment.pk).update(last_activity_at=timezone.now() - timedelta(hours=1))
    response = staff_api.post(f"/api/batches/{batch.pk}/release-abandoned/")
    assert response.json() == {"released": 1}
    assert staff_api.get(f"/api/batches/{batch.pk}/").json()["progress"]["released"] == 1


def test_batch_can_be_closed_but_not_reshaped(staff_api, project):
    batch = batch_create(project=project, name="b", items_per_unit=3)
    response = staff_api.patch(f"/api/batches/{batch.pk}/", {"status": "closed", "items_per_unit": 1}, format="json")
    assert response.status_code == 200, response.content
    batch.refresh_from_db()
    assert batch.status == Batch.Status.CLOSED and batch.items_per_unit == 3


def test_create_batch_with_a_pilot_and_an_order_then_change_the_order_but_not_the_pilot(staff_api, project):
    body = {"project": project.pk, "name": "b", "items_per_unit": 2, "assignments_per_unit": 2}
    plain = staff_api.post("/api/batches/", body, format="json").json()
    assert (plain["handout"], plain["pilot_items"]) == ("overlap", 0)
    response = staff_api.post("/api/batches/", {**body, "handout": "spread", "pilot_items": 3}, format="json")
    assert response.status_code == 201, response.content
    batch = Batch.objects.get(pk=response.json()["id"])
    assert (batch.handout, batch.pilot_items, batch.units.filter(pilot=True, every_annotator=True).count()) == (
        "spread",
        3,
        2,
    )
    patched = staff_api.patch(f"/api/batches/{batch.pk}/", {"handout": "overlap", "pilot_items": 0}, format="json")
    assert patched.status_code == 200, patched.content
    batch.refresh_from_db()
    assert (batch.handout, batch.pilot_items) == ("overlap", 3)
    assert staff_api.post("/api/batches/", {**body, "handout": "random"}, format="json").status_code == 400
    assert staff_api.post("/api/batches/", {**body, "pilot_items": 7}, format="json").status_code == 409


def test_a_batch_with_a_study_file_and_a_mistake_named_with_its_line(staff_api, project):
    """Issue 27: the study file is part of a batch made through the API; a mistake is a 400."""
    bad = staff_api.post(
        "/api/batches/",
        {"project": project.pk, "name": "b", "study": "consent:\n  text: ok\n  colour: red\n"},
        format="json",
    )
    assert bad.status_code == 400
    assert "line 3, consent.colour: unknown key 'colour'" in str(bad.json()), bad.json()
    assert not Batch.objects.exists()
    good = staff_api.post(
        "/api/batches/", {"project": project.pk, "name": "b", "study": "consent:\n  text: ok\n"}, format="json"
    )
    assert good.status_code == 201 and good.json()["study"] == "consent:\n  text: ok\n"
