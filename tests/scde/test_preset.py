"""SCDE's MTurk preset (paper §5.3): its values, picking it in the batch admin (add and change
forms) and in `create_batch --preset`, the cost estimate of a batch made with it (reward,
MTurk's fee with Masters, total), and a kind without presets offering none."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.channels import hit_settings_for
from annotation.kinds import PresetError, get_kind, preset_for_channel, preset_named
from annotation.models import Batch
from annotation.mturk.fees import assignment_fee
from annotation.services.publish import cost_estimate
from tests.factories import ItemFactory, ProjectFactory
from tests.mturk_channel.conftest import mturk_settings, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db
ADD = reverse("admin:annotation_batch_add")
CHANGELIST = reverse("admin:annotation_batch_changelist")


@pytest.fixture
def project():
    project = ProjectFactory(kind="scde", name="SCDE study")
    ItemFactory.create_batch(3, project=project)
    return project


def add_batch(admin_client, project, **extra):
    data = {
        "project": project.pk,
        "name": "Round 1",
        "items_per_unit": "",
        "assignments_per_unit": 3,
        "release_after_minutes": 60,
        "channel": "mturk",
        "channel_settings": "",
        "external_ids": "",
        **extra,
    }
    return admin_client.post(ADD, data)


def test_the_preset_holds_the_papers_setup():
    channel, preset = preset_named(get_kind("scde"), "paper")
    assert channel == "mturk" and preset_for_channel(get_kind("scde"), "mturk") is preset
    assert preset.items_per_unit == 1
    assert dict(preset.channel_settings) == {
        "locales": ["US", "GB"],
        "masters": True,
        "min_approval_rate": 90,
        "min_hits_approved": None,
        "reward": "1.50",
        "assignment_duration_seconds": 2700,
    }
    assert "§5.3" in preset.description and "$1.50" in preset.description and "45 minutes" in preset.description


def test_picking_it_in_the_add_form_fills_settings_and_one_passage_per_unit(admin_client, project):
    response = add_batch(admin_client, project, use_preset="on")
    assert response.status_code == 302, response.content.decode()[:3000]
    batch = Batch.objects.get()
    assert batch.channel == "mturk" and batch.items_per_unit == 1 and batch.units.count() == 3
    hit = hit_settings_for(batch)
    assert hit.locales == ("US", "GB") and hit.masters and hit.min_approval_rate == 90
    assert hit.min_hits_approved is None and hit.reward == Decimal("1.50") and hit.assignment_duration_seconds == 2700


def test_the_add_form_keeps_what_the_researcher_typed(admin_client, project):
    typed = {"reward": "2.25", "assignment_duration_seconds": 3600}
    response = add_batch(admin_client, project, use_preset="on", items_per_unit=3, channel_settings=json.dumps(typed))
    assert response.status_code == 302, response.content.decode()[:3000]
    batch = Batch.objects.get()
    assert batch.items_per_unit == 3 and batch.units.count() == 1
    assert batch.channel_settings["reward"] == "2.25" and batch.channel_settings["assignment_duration_seconds"] == 3600
    assert batch.channel_settings["masters"] is True and batch.channel_settings["locales"] == ["US", "GB"]


def test_the_change_form_fills_the_settings_without_overwriting(admin_client, project):
    add_batch(admin_client, project, items_per_unit=1)
    batch = Batch.objects.get()
    assert batch.channel_settings == {}
    data = {
        "name": batch.name,
        "status": batch.status,
        "release_after_minutes": 60,
        "use_preset": "on",
        "channel_settings": json.dumps({"reward": "1.80"}),
        "invites-TOTAL_FORMS": 0,
        "invites-INITIAL_FORMS": 0,
        "adjudication-TOTAL_FORMS": 0,
        "adjudication-INITIAL_FORMS": 0,
    }
    response = admin_client.post(reverse("admin:annotation_batch_change", args=[batch.pk]), data)
    assert response.status_code == 302, response.context_data["adminform"].form.errors
    batch.refresh_from_db()
    assert batch.channel_settings["reward"] == "1.80" and batch.channel_settings["masters"] is True


def test_create_batch_preset(project):
    out = io.StringIO()
    call_command(
        "create_batch",
        str(project.pk),
        "--name",
        "paper",
        "--preset",
        "paper",
        "--channel-settings",
        '{"reward": "1.75"}',
        stdout=out,
    )
    batch = Batch.objects.get()
    assert batch.channel == "mturk" and batch.items_per_unit == 1 and batch.units.count() == 3
    assert batch.channel_settings["reward"] == "1.75" and batch.channel_settings["masters"] is True
    assert "Created batch" in out.getvalue()


def test_create_batch_refuses_unknown_presets_and_bad_settings(project):
    with pytest.raises(CommandError, match="no preset 'nope'; known: paper \\(mturk\\)"):
        call_command("create_batch", str(project.pk), "--name", "x", "--preset", "nope", stdout=io.StringIO())
    with pytest.raises(CommandError, match="reward"):
        call_command(
            "create_batch",
            str(project.pk),
            "--name",
            "x",
            "--preset",
            "paper",
            "--channel-settings",
            '{"reward": "0"}',
            stdout=io.StringIO(),
        )
    assert not Batch.objects.exists()


def test_the_cost_estimate_of_a_preset_batch(admin_client, project, mturk_settings):  # noqa: F811
    add_batch(admin_client, project, use_preset="on")
    estimate = cost_estimate(batch=Batch.objects.get())
    # 3 units of one passage x 3 workers; Masters: 20 % + 5 % of $1.50 = 0.375 -> $0.38
    assert estimate.audience == "Masters" and estimate.units == 3 and estimate.assignments == 9
    assert estimate.reward == Decimal("1.50") and estimate.fee == Decimal("0.38")
    assert estimate.fee == assignment_fee("1.50", max_assignments=3, masters=True)
    assert estimate.rewards_total == Decimal("13.50") and estimate.fees_total == Decimal("3.42")
    assert estimate.total == Decimal("16.92")
    action = {"action": "publish_postings", "_selected_action": [Batch.objects.get().pk]}
    page = admin_client.post(CHANGELIST, action, follow=True).content.decode()
    assert "(Masters)" in page and "$0.38" in page and "$13.50" in page and "$16.92" in page


def test_a_kind_without_presets_offers_none(admin_client):
    recam = ProjectFactory(kind="recam")
    ItemFactory.create_batch(2, project=recam)
    assert get_kind("recam").channel_presets() == {}
    with pytest.raises(PresetError, match="has no preset for the 'mturk' channel; it has no presets"):
        preset_for_channel(get_kind("recam"), "mturk")
    response = add_batch(admin_client, recam, use_preset="on")
    assert response.status_code == 200 and "it has no presets" in response.content.decode()
    with pytest.raises(CommandError, match="it has no presets"):
        call_command("create_batch", str(recam.pk), "--name", "x", "--preset", "paper", stdout=io.StringIO())
    assert not Batch.objects.exists()
