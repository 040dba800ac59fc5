"""Issue 20 item 5: teams kept apart. Team A's project has something behind every admin page, API
operation and quality URL; a researcher of team B holding every model permission walks them all
with A's ids and gets nothing: 404 from the API and the quality pages, the admin's "does not exist"
redirect (the answer an id that never existed gets), no A rows in any list or choice, actions that
change nothing, and A's project name nowhere in a page. The walks read the admin's registry, the
OpenAPI schema and quality.urls, so a new page or endpoint is walked without touching this file."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import (
    AdjudicationTask,
    Assignment,
    BulkPayment,
    ChannelCall,
    FinalLabel,
    ModelCall,
    ModelConnection,
    ModelRun,
    Participation,
    Posting,
    Project,
    PublishJob,
    Response,
    Submission,
    Team,
)
from quality.models import Prediction
from tests.factories import BatchFactory, ItemFactory, ProjectFactory, TeamFactory, UserFactory
from tests.security.conftest import World, staff_with
from tests.security.test_permissions import QUALITY_WRITES, api_operations, api_url, quality_pages

pytestmark = pytest.mark.django_db

SECRET = "Alpha-secret study"  #: team A's project name: it must not appear in anything team B sees
EVERY_PERMISSION = ("view_", "add_", "change_", "delete_", "spend_on_channel")
APPS = ("annotation", "quality")


@dataclass
class Teams:
    world: World
    team_a: Team
    team_b: Team
    b_project: Project
    outsider: object  # a researcher of team B only, with every permission
    a_objects: dict  # model -> pks of team A's rows, taken before team B's rows existed


def registered_models() -> list:
    return [m for m in apps.get_models() if m._meta.app_label in APPS and admin.site.is_registered(m)]


def row_counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in apps.get_models() if m._meta.app_label in APPS}


@pytest.fixture
def teams(world) -> Teams:
    """The world (team A) given a row of every registered model, then team B with its own project."""
    Project.objects.filter(pk=world.project.pk).update(name=SECRET)
    batch, unit = world.batch, world.batch.units.order_by("position").first()
    PublishJob.objects.create(batch=batch, base_url="http://a.example")
    Posting.objects.create(unit=unit, ref="HIT-TEAM-A", places=1)
    Submission.objects.create(
        batch=batch, assignment=Assignment.objects.filter(unit__batch=batch).first(), ref="WORK-TEAM-A"
    )
    first, second = Response.objects.filter(item__project=world.project).order_by("item_id", "id")[:2]
    item = first.item
    second = Response.objects.filter(item=item).exclude(pk=first.pk).first() or second
    AdjudicationTask.objects.create(
        item=item, batch=batch, first_response=first, second_response=second, fields_in_dispute=["choice"]
    )
    FinalLabel.objects.create(item=item, batch=batch, field="choice", value=1, how="agreed")
    ChannelCall.objects.create(batch=batch, channel="prolific", operation="create_study", outcome="ok", status=201)
    BulkPayment.objects.create(batch=batch, label="bonus", total="1.00")
    Participation.objects.create(
        annotator=Assignment.objects.filter(unit__batch=batch).first().annotator, batch=batch, consent="agreed"
    )
    Prediction.objects.create(
        project=world.project, item=item, model="model-of-team-a", labels={"choice": 1}, imported_at=timezone.now()
    )
    connection = ModelConnection.objects.create(
        team=world.project.team, name="model-of-team-a", base_url="http://127.0.0.1:9/v1", model="m"
    )
    run = ModelRun.objects.create(project=world.project, connection=connection)
    ModelCall.objects.create(
        connection=connection, run=run, item=item, prompt_hash="a" * 64, outcome="labeled", labels={"choice": 1}
    )
    a_objects = {m: set(m._default_manager.values_list("pk", flat=True)) for m in registered_models()}
    missing = [m._meta.label for m, pks in a_objects.items() if not pks]
    assert not missing, f"give team A's world a row of {missing} so its pages are walked"

    team_b = TeamFactory(name="Team B")
    b_project = ProjectFactory(team=team_b, name="Bravo study")
    ItemFactory(project=b_project)
    BatchFactory(project=b_project, name="Bravo batch")
    outsider = staff_with(*EVERY_PERMISSION, teams=[team_b])
    return Teams(world, world.project.team, team_b, b_project, outsider, a_objects)


# --- the admin -------------------------------------------------------------------------------


def admin_routes(model) -> list[URLPattern]:
    return [p for p in admin.site.get_model_admin(model).urls if isinstance(p, URLPattern) and p.name]


NEVER = 10**9  #: an id no row has


def answer(response) -> tuple[int, str | None]:
    return response.status_code, response.headers.get("Location")


def test_every_admin_page_of_team_a_answers_as_for_an_id_that_does_not_exist(teams):
    """Change, delete, history and the custom object pages (import...), read and posted: the
    same answer as for an id nobody has (mostly the admin's redirect to its index; 403 where
    nobody may post to a read-only page), never the page."""
    client = Client()
    client.force_login(teams.outsider)
    before, wrong = row_counts(), {}
    for model, pks in teams.a_objects.items():
        for route in admin_routes(model):
            takes_id = "object_id" in str(route.pattern)
            url = reverse(f"admin:{route.name}", kwargs={"object_id": min(pks)} if takes_id else {})
            never = reverse(f"admin:{route.name}", kwargs={"object_id": NEVER}) if takes_id else None
            for method in ("get", "post"):
                data = {"post": "yes"} if method == "post" else {}
                response = getattr(client, method)(url, data)
                if takes_id:
                    expected = answer(getattr(client, method)(never, data))
                    if answer(response) != expected or response.status_code == 200:
                        wrong[(method, url)] = (answer(response), expected)
                elif response.status_code >= 500 or SECRET in response.content.decode():
                    wrong[(method, url)] = response.status_code
    assert wrong == {}
    assert row_counts() == before


def test_team_b_changelists_hold_no_row_of_team_a(teams):
    client = Client()
    client.force_login(teams.outsider)
    leaked = {}
    for model, pks in teams.a_objects.items():
        response = client.get(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"))
        assert response.status_code == 200, model
        shown = {obj.pk for obj in response.context["cl"].queryset}
        if shown & pks or SECRET in response.content.decode():
            leaked[model._meta.label] = shown & pks
    assert leaked == {}
    projects = client.get(reverse("admin:annotation_project_changelist")).context["cl"].queryset
    assert list(projects) == [teams.b_project]  # their own project is there


def test_team_b_actions_on_team_a_rows_change_nothing(teams):
    client = Client()
    client.force_login(teams.outsider)
    before, wrong = row_counts(), {}
    for model, pks in teams.a_objects.items():
        model_admin = admin.site.get_model_admin(model)
        request = client.get(reverse("admin:index")).wsgi_request
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for action in model_admin.get_actions(request):
            data = {"action": action, "_selected_action": sorted(pks), "post": "yes", "apply": "1"}
            response = client.post(url, data)
            if response.status_code >= 500 or SECRET in response.content.decode():
                wrong[(model._meta.label, action)] = response.status_code
    assert wrong == {}
    assert row_counts() == before


def test_team_b_add_forms_offer_only_their_own_projects_and_teams(teams):
    client = Client()
    client.force_login(teams.outsider)
    batch_form = client.get(reverse("admin:annotation_batch_add")).context["adminform"].form
    assert list(batch_form.fields["project"].queryset) == [teams.b_project]
    project_form = client.get(reverse("admin:annotation_project_add")).context["adminform"].form
    assert list(project_form.fields["team"].queryset) == [teams.team_b]
    assert project_form.initial["team"] == teams.team_b  # their only team is chosen for them
    posted = client.post(
        reverse("admin:annotation_batch_add"),
        {
            "project": teams.world.project.pk,
            "name": "into A",
            "release_after_minutes": 60,
            "channel": "invite",
            "channel_settings": "{}",
        },
    )
    assert posted.status_code == 200 and "Select a valid choice" in posted.content.decode()
    assert not teams.world.project.batches.filter(name="into A").exists()


def test_a_researcher_in_several_teams_chooses_the_team(teams):
    both = staff_with(*EVERY_PERMISSION, teams=[teams.team_a, teams.team_b])
    client = Client()
    client.force_login(both)
    form = client.get(reverse("admin:annotation_project_add")).context["adminform"].form
    assert set(form.fields["team"].queryset) == {teams.team_a, teams.team_b} and form.initial.get("team") is None
    shown = set(client.get(reverse("admin:annotation_project_changelist")).context["cl"].queryset)
    assert shown == {teams.world.project, teams.b_project}


def test_the_team_page_shows_only_your_teams(teams):
    client = Client()
    client.force_login(teams.outsider)
    assert list(client.get(reverse("admin:annotation_team_changelist")).context["cl"].queryset) == [teams.team_b]
    superuser = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(superuser)
    assert set(client.get(reverse("admin:annotation_team_changelist")).context["cl"].queryset) == set(
        Team.objects.all()
    )


def test_a_researcher_who_makes_a_team_is_in_it(teams):
    client = Client()
    client.force_login(teams.outsider)
    response = client.post(reverse("admin:annotation_team_add"), {"name": "Team C"})
    assert response.status_code == 302
    assert list(Team.objects.get(name="Team C").members.all()) == [teams.outsider]


def test_a_superuser_sees_every_team_in_the_admin(teams):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    for model, pks in teams.a_objects.items():
        response = client.get(
            reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[min(pks)])
        )
        assert response.status_code == 200, model
    shown = set(client.get(reverse("admin:annotation_project_changelist")).context["cl"].queryset)
    assert shown == {teams.world.project, teams.b_project}


# --- the API ---------------------------------------------------------------------------------


def researcher_operations() -> list[tuple[str, str, str, list[str]]]:
    ops = [op for op in api_operations() if not op[1].startswith("/api/me/")]
    return sorted(ops, key=lambda op: op[0] == "DELETE")


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def team_a_body(teams: Teams) -> dict:
    """A body naming team A's objects wherever an operation takes one."""
    return {
        "team": teams.team_a.pk,
        "project": teams.world.project.pk,
        "name": "intruder",
        "kind": "recam",
        "items": [teams.world.item.pk],
        "dataset": "raw",
        "format": "csv",
    }


def test_every_api_operation_on_team_a_is_404_or_empty_for_team_b(teams):
    client = api_client(teams.outsider)
    before, wrong = row_counts(), {}
    for method, path, _, query in researcher_operations():
        url = api_url(teams.world, path, query)
        if "{" not in path and method == "GET":  # a list: filtered to A's project, and unfiltered
            url = f"{url}{'&' if '?' in url else '?'}project={teams.world.project.pk}"
        response = client.generic(method, url, json.dumps(team_a_body(teams)), content_type="application/json")
        body = response.content.decode()
        if SECRET in body or response.status_code >= 500:
            wrong[(method, path)] = response.status_code
        elif "{" in path:
            if response.status_code != 404:
                wrong[(method, path)] = response.status_code
        elif method == "GET":  # a list: none of A's rows (the id of A's project, or rows of it)
            listed = response.json() if response.status_code == 200 else {}
            rows = listed.get("results", []) if isinstance(listed, dict) else listed
            a_project = teams.world.project.pk
            if response.status_code != 200 or any(
                r.get("project", r["id"] if path == "/api/projects/" else None) == a_project for r in rows
            ):
                wrong[(method, path)] = body[:200]
        elif response.status_code not in (
            400,
            404,
        ):  # creating under team A's project (its id answers as one nobody has) or team
            wrong[(method, path)] = response.status_code
    assert wrong == {}
    assert row_counts() == before


def test_team_b_lists_show_their_own_rows(teams):
    client = api_client(teams.outsider)
    assert [p["name"] for p in client.get("/api/projects/").json()["results"]] == ["Bravo study"]
    assert [b["name"] for b in client.get("/api/batches/").json()["results"]] == ["Bravo batch"]
    assert {i["project"] for i in client.get("/api/items/").json()["results"]} == {teams.b_project.pk}


def test_creating_a_project_in_the_api_defaults_to_the_only_team_and_refuses_others(teams):
    client = api_client(teams.outsider)
    made = client.post("/api/projects/", {"name": "B2", "kind": "recam"}, format="json")
    assert made.status_code == 201 and Project.objects.get(pk=made.json()["id"]).team == teams.team_b
    refused = client.post("/api/projects/", {"name": "A2", "kind": "recam", "team": teams.team_a.pk}, format="json")
    assert refused.status_code == 404 and "team" in refused.json()["detail"]  # as an id nobody has
    moved = client.patch(f"/api/projects/{made.json()['id']}/", {"team": teams.team_a.pk}, format="json")
    assert moved.status_code == 404
    assert not Project.objects.filter(team=teams.team_a, name__in=["A2", "B2"]).exists()


def test_a_researcher_in_several_teams_names_the_team_in_the_api(teams):
    client = api_client(staff_with(*EVERY_PERMISSION, teams=[teams.team_a, teams.team_b]))
    unnamed = client.post("/api/projects/", {"name": "X", "kind": "recam"}, format="json")
    assert unnamed.status_code == 400 and "team" in unnamed.json()
    named = client.post("/api/projects/", {"name": "X", "kind": "recam", "team": teams.team_a.pk}, format="json")
    assert named.status_code == 201 and Project.objects.get(pk=named.json()["id"]).team == teams.team_a
    names = {p["name"] for p in client.get("/api/projects/").json()["results"]}
    assert names == {SECRET, "Bravo study", "X"}
    assert client.get(f"/api/projects/{teams.world.project.pk}/").status_code == 200
    assert client.get(f"/api/projects/{teams.b_project.pk}/").status_code == 200


def test_a_superuser_reads_every_team_in_the_api(teams):
    client = api_client(UserFactory(is_staff=True, is_superuser=True))
    names = {p["name"] for p in client.get("/api/projects/").json()["results"]}
    assert names == {SECRET, "Bravo study"}
    wrong = {}
    for method, path, _, query in researcher_operations():
        if method == "GET":
            code = client.get(api_url(teams.world, path, query)).status_code
            if code != 200:
                wrong[path] = code
    assert wrong == {}


# --- the quality pages -------------------------------------------------------------------------


def test_every_quality_url_of_team_a_is_404_for_team_b(teams):
    client = Client()
    client.force_login(teams.outsider)
    before = row_counts()
    answers = {
        name: (client.post(url) if name in QUALITY_WRITES else client.get(url)).status_code
        for name, url in quality_pages(teams.world).items()
    }
    assert answers == dict.fromkeys(answers, 404)
    assert row_counts() == before


def test_a_member_of_both_teams_reads_team_a_quality_pages(teams):
    client = Client()
    client.force_login(staff_with(*EVERY_PERMISSION, teams=[teams.team_a, teams.team_b]))
    pages = quality_pages(teams.world)
    reads = {name: client.get(url).status_code for name, url in pages.items() if name not in QUALITY_WRITES}
    assert set(reads.values()) == {200}


def test_team_membership_is_checked_for_every_row_kind_the_admin_shows():
    """The selector behind it all: a new model registered in the admin must say how it reaches its
    project (TeamScoped.project_path), or hold no project data at all (Team)."""
    from annotation.admin.common import TeamScoped

    unscoped = [
        m._meta.label
        for m in registered_models()
        if m is not Team and not isinstance(admin.site.get_model_admin(m), TeamScoped)
    ]
    assert unscoped == []
    assert re.fullmatch(r"[a-z_]*", TeamScoped.project_path)
