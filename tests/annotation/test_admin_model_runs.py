"""The admin's model connections and runs: the key's variable named, the key never shown; a new
run is an estimate, run from the list after a page showing its cost, cancelled from the list."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import override_settings
from django.urls import reverse

from annotation.models import ModelCall, ModelConnection, ModelRun
from tests.annotation.llm_helpers import admin
from tests.factories import ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db
SECRET = "sk-admin-secret-987"
RUNS = reverse("admin:annotation_modelrun_changelist")


@pytest.fixture
def setup(local_model, monkeypatch):
    monkeypatch.setenv("ADMIN_TEST_LLM_KEY", SECRET)
    project = ProjectFactory()
    for n in range(4):
        ItemFactory(project=project, external_id=f"q{n}")
    connection = ModelConnection.objects.create(
        team=project.team,
        name="zero-shot",
        base_url=local_model.base_url,
        model="m",
        api_key_env="ADMIN_TEST_LLM_KEY",
        input_price=Decimal(2),
        output_price=Decimal(8),
        requests_per_minute=6000,
    )
    return project, connection


def test_the_connection_pages_name_the_keys_variable_but_never_the_key(admin_client, setup):
    _project, connection = setup
    listing = admin_client.get(reverse("admin:annotation_modelconnection_changelist")).content.decode()
    page = admin_client.get(reverse("admin:annotation_modelconnection_change", args=[connection.pk])).content.decode()
    assert "ADMIN_TEST_LLM_KEY: set" in listing and "ADMIN_TEST_LLM_KEY" in page
    assert SECRET not in listing and SECRET not in page


@override_settings(LLM_TIMEOUT_SECONDS=5, LLM_MAX_RETRIES=1)
def test_a_run_is_estimated_then_run_after_its_cost_is_shown(
    admin_client, setup, local_model, django_capture_on_commit_callbacks
):
    project, connection = setup
    added = admin_client.post(
        reverse("admin:annotation_modelrun_add"), {"project": project.pk, "connection": connection.pk, "prompt": ""}
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    run = ModelRun.objects.get()
    assert run.status == "estimated" and run.items_total == 4 and run.estimated_cost > 0
    confirm = admin_client.post(RUNS, {"action": "run_models", "_selected_action": [run.pk]})
    page = confirm.content.decode()
    assert 'id="model-run-total"' in page and str(run.estimated_cost) in page and SECRET not in page
    assert admin(local_model, "GET", "requests")["total"] == 0  # nothing spent before the confirmation
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(RUNS, {"action": "run_models", "_selected_action": [run.pk], "post": "yes"})
    run.refresh_from_db()
    assert run.status == "done" and run.items_done == 4 and ModelCall.objects.count() == 4
    listing = admin_client.get(RUNS).content.decode()
    assert "4 / 4" in listing and SECRET not in listing
    detail = admin_client.get(reverse("admin:annotation_modelrun_change", args=[run.pk])).content.decode()
    assert SECRET not in detail


def test_a_run_of_another_teams_connection_is_refused(admin_client, setup):
    _project, connection = setup
    other = ProjectFactory()
    page = admin_client.post(
        reverse("admin:annotation_modelrun_add"), {"project": other.pk, "connection": connection.pk, "prompt": ""}
    )
    assert "of the project&#x27;s team" in page.content.decode() and not ModelRun.objects.exists()


def test_cancel_from_the_list(admin_client, setup):
    project, connection = setup
    run = ModelRun.objects.create(project=project, connection=connection, status="queued")
    admin_client.post(RUNS, {"action": "cancel_runs", "_selected_action": [run.pk]})
    run.refresh_from_db()
    assert run.status == "cancelled" and run.cancel_requested
