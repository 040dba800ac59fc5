"""Made-up Prolific entries cannot fill a study (issue 25, item 3): a session Prolific does not
confirm at entry takes no place (tests/prolific_channel/test_participant.py), and work admitted
while Prolific could not be asked holds its place only UNCONFIRMED_RELEASE_MINUTES."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from annotation import prolific
from annotation.channels import get_channel
from annotation.models import Assignment
from annotation.services.assignments import assignments_release_abandoned

from .conftest import BASE_URL, admin, local_path, open_study, prolific_batch

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("prolific_settings")]


@pytest.fixture
def one_place(server):
    """A batch with one unit and one place of ours (Prolific's study has spare places: somebody
    it holds as taking part need not be anybody our side admitted)."""
    batch = prolific_batch(units=1, assignments=1)
    channel = get_channel("prolific")
    channel.publish(batch, base_url=BASE_URL)
    study_id = batch.units.get().channel_ref
    prolific.update_study(channel.client(), study_id, total_available_places=3)
    return batch, study_id


def enter_while_prolific_is_down(server, study_id: str, name: str):
    """The participant arrives while every lookup is throttled: admitted, held apart."""
    _side, study_url = open_study(server, study_id, name)
    admin(
        server, "POST", "/_local/faults", {"operation": "get_submission", "kind": "429", "count": 5, "retry_after": 0}
    )
    opened = Client().get(local_path(study_url))
    assert opened.status_code == 302
    return study_url, Assignment.objects.get(channel_assignment_id=study_url.split("SESSION_ID=")[1])


def test_work_prolific_could_not_confirm_holds_its_place_only_the_settings_minutes(server, one_place, settings):
    settings.UNCONFIRMED_RELEASE_MINUTES = 5
    batch, study_id = one_place
    _url, held = enter_while_prolific_is_down(server, study_id, "FIRST")
    assert not held.confirmed and "Prolific did not answer" in held.unconfirmed_reason
    _side, second_url = open_study(server, study_id, "SECOND")
    assert Client().get(local_path(second_url)).status_code == 410  # the one place is held

    assert assignments_release_abandoned(batch=batch, now=held.started_at + timedelta(minutes=4)) == 0
    assert assignments_release_abandoned(batch=batch, now=held.started_at + timedelta(minutes=6)) == 1
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.RELEASED
    assert Client().get(local_path(second_url)).status_code == 302  # the place went to a confirmed session
    assert Assignment.objects.get(channel_assignment_id=second_url.split("SESSION_ID=")[1]).confirmed


def test_the_entry_sweep_frees_an_unconfirmed_place_without_waiting_for_beat(server, one_place, settings):
    settings.UNCONFIRMED_RELEASE_MINUTES = 5
    _batch, study_id = one_place
    _url, held = enter_while_prolific_is_down(server, study_id, "FIRST")
    Assignment.objects.filter(pk=held.pk).update(started_at=timezone.now() - timedelta(minutes=6))
    _side, second_url = open_study(server, study_id, "SECOND")
    assert Client().get(local_path(second_url)).status_code == 302
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.RELEASED


def test_a_return_once_prolific_answers_confirms_the_work_and_keeps_its_place(server, one_place, settings):
    settings.UNCONFIRMED_RELEASE_MINUTES = 5
    batch, study_id = one_place
    study_url, held = enter_while_prolific_is_down(server, study_id, "FIRST")
    assert Client().get(local_path(study_url)).status_code == 302  # Prolific answers now
    held.refresh_from_db()
    assert held.confirmed and held.unconfirmed_reason == ""
    later = held.started_at + timedelta(minutes=60)
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=later)
    assert assignments_release_abandoned(batch=batch, now=later + timedelta(minutes=1)) == 0
