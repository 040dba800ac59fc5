"""A batch's model and suggestions, set in the admin and through the API: only the project's
team's model connections, and suggestions only with a model."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Batch
from annotation.services.batches import BatchError, batch_create
from tests.annotation.test_admin_batches import add_batch
from tests.factories import ItemFactory, ModelConnectionFactory, ProjectFactory, TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory()
    ItemFactory.create_batch(4, project=project)
    return project


def _researcher_api(*teams):
    """A researcher of `teams` who may add and view batches."""
    user = staff_with("add_", "view_", "change_", teams=teams)
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_service_refuses_suggestions_without_a_model_and_another_teams_model(project):
    with pytest.raises(BatchError, match="suggestions need a model"):
        batch_create(project=project, name="b", suggestions="hint")
    with pytest.raises(BatchError, match="project's team's"):
        batch_create(project=project, name="b", model=ModelConnectionFactory(), suggestions="hint")
    model = ModelConnectionFactory(team=project.team)
    batch = batch_create(project=project, name="b", model=model, suggestions="preselect")
    assert (batch.model, batch.suggestions) == (model, "preselect")


def test_the_api_creates_a_batch_with_its_model_and_suggestions(project):
    api, model = _researcher_api(project.team), ModelConnectionFactory(team=project.team)
    body = {"project": project.pk, "name": "b", "model": model.pk, "suggestions": "hint"}
    response = api.post("/api/batches/", body, format="json")
    assert response.status_code == 201, response.content
    assert (response.json()["model"], response.json()["suggestions"]) == (model.pk, "hint")
    assert Batch.objects.get().model == model


def test_the_api_answers_another_teams_model_as_unknown_and_a_missing_model_as_a_mistake(project):
    api = _researcher_api(project.team)
    theirs = ModelConnectionFactory()
    refused = api.post("/api/batches/", {"project": project.pk, "name": "b", "model": theirs.pk}, format="json")
    assert refused.status_code == 404
    missing = api.post("/api/batches/", {"project": project.pk, "name": "b", "suggestions": "hint"}, format="json")
    assert missing.status_code == 400 and "need a model" in missing.content.decode()
    other_team = TeamFactory()
    both = _researcher_api(project.team, other_team)  # a member of two teams: still the project's team's only
    mixed = ModelConnectionFactory(team=other_team)
    response = both.post("/api/batches/", {"project": project.pk, "name": "b", "model": mixed.pk}, format="json")
    assert response.status_code == 400 and "project's team's" in response.content.decode()
    assert not Batch.objects.exists()


def test_the_admin_offers_only_the_batchs_team_models_and_keeps_them_when_not_posted(admin_client, project):
    ours, theirs = ModelConnectionFactory(team=project.team, name="ours"), ModelConnectionFactory(name="theirs")
    batch = batch_create(project=project, name="b", items_per_unit=2, model=ours, suggestions="hint")
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="suggestions"' in page and ">ours</option>" in page and ">theirs</option>" not in page
    data = {"name": "b", "status": "open", "release_after_minutes": 60, "channel_settings": "{}"}
    data |= {f"{inline}-{n}_FORMS": "0" for inline in ("invites", "adjudication") for n in ("TOTAL", "INITIAL")}
    assert admin_client.post(url, data).status_code == 302  # a form without the fields keeps them
    assert (Batch.objects.get().model, Batch.objects.get().suggestions) == (ours, "hint")
    assert admin_client.post(url, {**data, "model": theirs.pk, "suggestions": "hint"}).status_code == 200
    assert admin_client.post(url, {**data, "model": "", "suggestions": "preselect"}).status_code == 200
    assert admin_client.post(url, {**data, "model": ours.pk, "suggestions": "preselect"}).status_code == 302
    assert Batch.objects.get().suggestions == "preselect"


def test_the_admin_add_form_creates_a_batch_with_suggestions_and_refuses_them_without_a_model(admin_client, project):
    refused = add_batch(admin_client, project, suggestions="hint")
    assert refused.status_code == 200 and "suggestions need a model" in refused.content.decode()
    model = ModelConnectionFactory(team=project.team)
    assert add_batch(admin_client, project, model=model.pk, suggestions="preselect").status_code == 302
    assert (Batch.objects.get().model, Batch.objects.get().suggestions) == (model, "preselect")


def test_the_api_turns_suggestions_on_after_the_model_ran_and_off_again(project):
    api, model = _researcher_api(project.team), ModelConnectionFactory(team=project.team)
    batch = batch_create(project=project, name="b")
    url = f"/api/batches/{batch.pk}/"
    refused = api.patch(url, {"suggestions": "preselect"}, format="json")
    assert refused.status_code == 400 and "need a model" in refused.content.decode()
    assert api.patch(url, {"model": ModelConnectionFactory().pk}, format="json").status_code == 404  # another team's
    batch.refresh_from_db()
    assert (batch.model, batch.suggestions) == (None, "off")

    turned_on = api.patch(url, {"model": model.pk, "suggestions": "preselect"}, format="json")
    assert turned_on.status_code == 200, turned_on.content
    batch.refresh_from_db()
    assert (batch.model, batch.suggestions) == (model, "preselect")
    assert api.patch(url, {"model": None}, format="json").status_code == 400  # still suggesting: needs its model
    assert api.patch(url, {"suggestions": "off"}, format="json").status_code == 200
    batch.refresh_from_db()
    assert (batch.model, batch.suggestions) == (model, "off")
