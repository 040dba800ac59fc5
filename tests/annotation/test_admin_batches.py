"""Batch admin: created through the service, progress without N+1, invite and release actions."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Batch, InviteLink, Role
from annotation.services.adjudication import adjudication_setup_set
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from tests.factories import AnnotatorFactory, InviteLinkFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:annotation_batch_changelist")


@pytest.fixture
def project():
    project = ProjectFactory()
    ItemFactory.create_batch(5, project=project)
    return project


def busy_batch(project, name: str) -> Batch:
    batch = batch_create(project=project, name=name, items_per_unit=2, assignments_per_unit=2)
    assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    return batch


def add_batch(admin_client, project, **extra):
    data = {
        "project": project.pk,
        "name": "Round 1",
        "items_per_unit": 2,
        "assignments_per_unit": 3,
        "release_after_minutes": 45,
        "channel": "invite",
        "external_ids": "",
        **extra,
    }
    return admin_client.post(reverse("admin:annotation_batch_add"), data)


def test_add_form_creates_units_through_the_service(admin_client, project):
    assert admin_client.get(reverse("admin:annotation_batch_add")).status_code == 200
    response = add_batch(admin_client, project)
    assert response.status_code == 302, response.content.decode()[:3000]
    batch = Batch.objects.get()
    assert batch.units.count() == 3 and batch.assignments_per_unit == 3 and batch.release_after_minutes == 45


def test_add_form_hands_out_overlap_first_by_default_or_as_chosen_with_a_pilot(admin_client, project):
    assert add_batch(admin_client, project).status_code == 302
    assert (Batch.objects.get().handout, Batch.objects.get().pilot_items) == ("overlap", 0)
    response = add_batch(admin_client, project, name="Round 2", handout="spread", pilot_items=2)
    assert response.status_code == 302, response.content.decode()[:3000]
    batch = Batch.objects.get(name="Round 2")
    assert (batch.handout, batch.pilot_items, batch.units.filter(pilot=True).count()) == ("spread", 2, 1)
    change = admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])).content.decode()
    assert 'name="handout"' in change and 'name="pilot_items"' not in change  # the pilot is fixed, the order not
    assert add_batch(admin_client, project, name="Round 3", pilot_items=5).status_code == 200  # nothing left
    assert not Batch.objects.filter(name="Round 3").exists()


def test_change_form_switches_the_order_and_a_post_without_it_keeps_it(admin_client, project):
    batch = batch_create(project=project, name="b", items_per_unit=2, handout="spread")
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    data = {"name": "b", "status": "open", "release_after_minutes": 60, "channel_settings": "{}"}
    data |= {f"{inline}-{n}_FORMS": "0" for inline in ("invites", "adjudication") for n in ("TOTAL", "INITIAL")}
    assert admin_client.post(url, data).status_code == 302
    assert Batch.objects.get().handout == "spread"
    assert admin_client.post(url, {**data, "handout": "overlap"}).status_code == 302
    assert Batch.objects.get().handout == "overlap"


def test_add_form_with_chosen_items(admin_client, project):
    chosen = list(project.items.order_by("-id").values_list("external_id", flat=True)[:2])
    response = add_batch(admin_client, project, external_ids="\n".join(chosen), items_per_unit=5)
    assert response.status_code == 302
    unit = Batch.objects.get().units.get()
    assert [ui.item.external_id for ui in unit.unit_items.order_by("position")] == chosen


@pytest.mark.parametrize(
    "extra, words", [({"external_ids": "no-such-item"}, "no-such-item"), ({"items_per_unit": 0}, "")]
)
def test_add_form_errors_are_shown(admin_client, project, extra, words):
    response = add_batch(admin_client, project, **extra)
    assert response.status_code == 200 and words in response.content.decode()
    assert not Batch.objects.exists()


def test_project_without_items_is_refused(admin_client):
    response = add_batch(admin_client, ProjectFactory())
    assert response.status_code == 200 and "import items first" in response.content.decode()


def test_changelist_shows_progress_with_constant_queries(admin_client, project, django_assert_max_num_queries):
    busy_batch(project, "first")
    with CaptureQueriesContext(connection) as one:
        assert admin_client.get(CHANGELIST).status_code == 200
    for n in range(6):
        busy_batch(project, f"more {n}")
    with django_assert_max_num_queries(len(one.captured_queries)):
        html = admin_client.get(CHANGELIST).content.decode()
    assert html.count("more ") >= 6
    assert 'class="field-active">1<' in html and 'class="field-slots">6<' in html


def test_change_page_shows_invite_links_in_full(admin_client, project):
    invite = InviteLinkFactory(batch=busy_batch(project, "b"))
    html = admin_client.get(reverse("admin:annotation_batch_change", args=[invite.batch.pk])).content.decode()
    assert f"http://testserver/i/{invite.token}/" in html


def test_create_invite_link_action_shows_the_link(admin_client, project):
    batch = busy_batch(project, "b")
    response = admin_client.post(CHANGELIST, {"action": "create_invite_link", "_selected_action": [batch.pk]})
    assert response.status_code == 200
    invite = InviteLink.objects.get(batch=batch)
    assert f"http://testserver/i/{invite.token}/" in response.content.decode()


def test_create_adjudicator_link_needs_the_stage_and_makes_a_one_person_link(admin_client, project):
    batch = busy_batch(project, "b")
    action = {"action": "create_adjudicator_link", "_selected_action": [batch.pk]}
    refused = admin_client.post(CHANGELIST, action, follow=True).content.decode()
    assert "has no adjudication stage" in refused and not InviteLink.objects.filter(batch=batch).exists()

    adjudication_setup_set(batch=batch)
    response = admin_client.post(CHANGELIST, action)
    link = InviteLink.objects.get(batch=batch)
    assert (link.role, link.max_annotators) == (Role.ADJUDICATOR, 1)
    html = response.content.decode()
    assert f"http://testserver/i/{link.token}/" in html and "resolves the batch's disagreements" in html


def test_release_abandoned_action(admin_client, project):
    batch = busy_batch(project, "b")
    Assignment.objects.update(last_activity_at=timezone.now() - timedelta(minutes=batch.release_after_minutes + 1))
    response = admin_client.post(
        CHANGELIST, {"action": "release_abandoned", "_selected_action": [batch.pk]}, follow=True
    )
    assert "Released 1 abandoned assignment" in response.content.decode()
    assert Assignment.objects.get().status == Assignment.Status.RELEASED


def test_invite_link_list_shows_full_url(admin_client):
    invite = InviteLinkFactory()
    html = admin_client.get(reverse("admin:annotation_invitelink_changelist")).content.decode()
    assert f"http://testserver/i/{invite.token}/" in html
    page = admin_client.get(reverse("admin:annotation_invitelink_change", args=[invite.pk]))
    assert f"http://testserver/i/{invite.token}/" in page.content.decode()


def test_assignment_list_filters_by_status(admin_client, project):
    busy_batch(project, "b")
    url = reverse("admin:annotation_assignment_changelist")
    assert "1 assignment" in admin_client.get(url + "?status__exact=active").content.decode()
    assert "0 assignments" in admin_client.get(url + "?status__exact=submitted").content.decode()


def test_add_form_makes_an_adaptive_batch_and_refuses_a_minimum_above_the_maximum(admin_client, project):
    refused = add_batch(admin_client, project, adaptive="on", min_annotators=4, max_annotators=3)
    assert refused.status_code == 200 and not Batch.objects.exists()
    assert "The maximum annotators cannot be below the minimum." in refused.content.decode()
    response = add_batch(
        admin_client, project, adaptive="on", min_annotators=2, max_annotators=4, target_confidence="0.98"
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    batch = Batch.objects.get()
    assert (batch.adaptive, batch.min_annotators, batch.slots_per_unit, batch.target_confidence) == (True, 2, 4, 0.98)
    plain = add_batch(admin_client, project, name="Round 2")  # the fields left out: not adaptive, defaults kept
    assert plain.status_code == 302 and not Batch.objects.get(name="Round 2").adaptive
