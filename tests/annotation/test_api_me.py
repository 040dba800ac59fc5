"""An annotator reads their own work through the API, and nothing else."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Response
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, UserFactory, save_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_annotators():
    """Two people on the same batch, each having answered the pre-reading page of one item."""
    project = ProjectFactory()
    ItemFactory.create_batch(4, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=2)
    people = []
    for choice in (1, 3):
        annotator = AnnotatorFactory(project=project, batch=batch)
        assignment = assignment_next(annotator=annotator, batch=batch)
        first = assignment.responses.order_by("position").first()
        save_answer(first.pk, "pre", {"choice": choice})
        people.append(annotator)
    return people


def as_annotator(annotator) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Annotator {annotator.access_key}")
    return client


def test_annotator_sees_only_own_responses(two_annotators):
    alice, bob = two_annotators
    body = as_annotator(alice).get("/api/me/responses/").json()
    own = set(Response.objects.filter(assignment__annotator=alice).values_list("id", flat=True))
    assert {r["id"] for r in body["results"]} == own
    answered = [r for r in body["results"] if r["answers"]]
    assert [r["answers"] for r in answered] == [{"pre": {"choice": 1}}]
    assert answered[0]["completed"] is False and "pre" in answered[0]["timings"]
    assert set(answered[0]) >= {"item_external_id", "assignment_status", "batch", "position"}
    bob_ids = set(Response.objects.filter(assignment__annotator=bob).values_list("id", flat=True))
    assert not bob_ids & {r["id"] for r in body["results"]}


def test_no_item_text_leaks(two_annotators):
    alice, _ = two_annotators
    content = as_annotator(alice).get("/api/me/responses/").content.decode()
    payload = Response.objects.filter(assignment__annotator=alice).first().item.payload
    for key in ("article", "question", "option_0", "option_1"):
        assert payload[key] not in content


def test_me_summarises_progress(two_annotators):
    alice, _ = two_annotators
    body = as_annotator(alice).get("/api/me/").json()
    assert body["external_id"] == alice.external_id
    assert body["responses"] == 2 and body["completed"] == 0


@pytest.mark.parametrize("header", [None, "Annotator not-a-key", "Annotator"])
def test_me_needs_a_valid_key(two_annotators, header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    assert client.get("/api/me/responses/").status_code == 401


def test_staff_session_is_not_an_annotator(two_annotators):
    client = APIClient()
    client.force_login(UserFactory(is_staff=True))
    assert client.get("/api/me/responses/").status_code in (401, 403)


def test_annotator_key_opens_no_researcher_endpoint(two_annotators):
    client = as_annotator(two_annotators[0])
    for url in ("/api/projects/", "/api/items/", "/api/batches/"):
        assert client.get(url).status_code == 403
