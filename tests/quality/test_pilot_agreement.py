"""A batch's pilot (its first items, which every annotator does first) gets its own agreement in
the quality run, the report page and the API, as soon as two annotators have done a pilot item."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.kinds import get_kind
from annotation.models import UnitItem
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.agreement import BOOTSTRAP, agreement_json
from quality.frames import label_frame
from quality.services.runs import quality_run_create
from quality.stats.agreement import field_agreement
from tests.factories import ProjectFactory
from tests.quality.conftest import Habit, work_through
from tests.quality.test_run_agreement import kept_annotations

pytestmark = pytest.mark.django_db


@pytest.fixture
def piloted(recam_dev_bytes):
    """20 ReCAM items: a pilot of 3, then units of 5 for two annotators each (overlap first)."""
    project = ProjectFactory(kind="recam")
    items_import(project=project, data=recam_dev_bytes, filename="Task_1_dev.sample.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=5, assignments_per_unit=2, pilot_items=3)
    return batch, invite_link_create(batch=batch)


def test_pilot_agreement_appears_once_two_annotators_have_done_the_pilot_and_covers_only_its_items(
    piloted, staff_client, staff
):
    batch, invite = piloted
    work_through(invite, Habit(units=2))
    alone = quality_run_create(project=batch.project)
    assert "pilot_agreement" not in alone.report and alone.report["agreement"]
    assert (
        'id="pilot-agreement"'
        not in staff_client.get(reverse("quality:report", args=[batch.project.pk])).content.decode()
    )

    work_through(invite, Habit(units=2, wrong=lambda unit, position: (unit, position) == (0, 0)))
    run = quality_run_create(project=batch.project)
    pilot_ids = set(UnitItem.objects.filter(unit__batch=batch, unit__pilot=True).values_list("item_id", flat=True))
    kept = kept_annotations(run)
    pilot = kept[kept["item_id"].isin(pilot_ids)]
    assert len(pilot_ids) == 3 and set(kept["item_id"]) > pilot_ids  # the pair also shared a regular unit
    for declared in get_kind("recam").label_fields():
        direct = field_agreement(label_frame(pilot, declared), level=declared.level, order=declared.order, **BOOTSTRAP)
        assert run.report["pilot_agreement"][declared.name] == agreement_json(direct, declared)
    assert run.report["pilot_agreement"]["post_choice"]["n_items"] == 3
    assert run.report["agreement"]["post_choice"]["n_items"] == 8

    html = staff_client.get(reverse("quality:report", args=[batch.project.pk])).content.decode()
    section = html[html.index('id="pilot-agreement"') :]
    assert "Pilot agreement" in section and 'data-field="post_choice"' in section
    api = APIClient()
    api.force_authenticate(staff)
    detail = api.get(reverse("api-quality-run-detail", args=[run.pk])).json()
    assert [f["field"] for f in detail["pilot_agreement"]] == run.report["agreement_fields"]
    assert detail["pilot_agreement"][0]["n_items"] == 3


def test_a_batch_without_a_pilot_has_no_pilot_agreement(annotated):
    run = quality_run_create(project=annotated.project)
    assert "pilot_agreement" not in run.report
