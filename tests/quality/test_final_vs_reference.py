"""The quality run scores the final (adjudicated) labels against the item's reference labels,
on GCRC's hand-checked item (tests/gcrc/test_export.py), only once all its fields are resolved.

Hand computation for the decision a_error = "ITQ" (the second's), d_evidence = [1, 2] (the
second's), the rest agreed as FIRST: reference evidences [[S1], [S2], [S3], [S3]], final
[[S1], [S2], [S1, S3], [S2, S3]]. Character F1 without punctuation: A, B = 1; C: 3 common of
9 predicted and 3 gold, P = 1/3, R = 1, F1 = 0.5; D: 3 common of 7 and 3, P = 3/7, F1 = 0.6;
mean 0.775. Error reasons over the options that have one (A, C, D): ITQ vs DTL wrong, TEMP, ITA
right: 2/3. Answer B (the item's own). Score = mean(1, 0.775, 2/3)."""

import pytest

from annotation.kinds.gcrc.quality import final_reference_scores
from annotation.selectors.adjudication import adjudication_summary, resolved_finals
from annotation.services.adjudication import adjudication_decide, adjudication_task_next
from quality.models import QualityRun
from quality.services.runs import quality_run_create
from tests.annotation.test_adjudication import adjudicator_of, gcrc_batch, two_annotations

pytestmark = pytest.mark.django_db


def decide(batch, values):
    adjudicator = adjudicator_of(batch)
    adjudication_decide(task=adjudication_task_next(adjudicator=adjudicator), adjudicator=adjudicator, values=values)


def test_the_run_scores_the_resolved_final_labels(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    decide(batch, {"a_error": "ITQ", "d_evidence": [2, 1]})
    quality_run_create(project=project)
    summary = QualityRun.objects.get(project=project).report["summary"]
    assert summary["final_vs_reference_items"] == 1
    assert summary["final_vs_reference_Task1_Acc"] == 1.0
    assert summary["final_vs_reference_Task2_F1"] == pytest.approx(0.775)
    assert summary["final_vs_reference_Task3_Acc"] == pytest.approx(2 / 3)
    assert summary["final_vs_reference_Score"] == pytest.approx((1 + 0.775 + 2 / 3) / 3)


def test_an_item_still_in_dispute_is_not_scored(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    assert resolved_finals(project) == []
    summary = adjudication_summary(project)
    assert summary["adjudication_tasks_open"] == 1
    assert summary["final_vs_reference_items"] == 0
    assert "final_vs_reference_Score" not in summary


def test_an_item_with_an_unresolved_field_is_not_scored(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    decide(batch, {"a_error": "ITQ", "d_evidence": None})  # d_evidence given no value: unresolved
    assert resolved_finals(project) == []
    assert adjudication_summary(project)["final_vs_reference_items"] == 0


def test_full_agreement_is_scored_without_any_task(django_capture_on_commit_callbacks):
    from tests.gcrc.test_export import FIRST

    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks, second=FIRST)
    ((payload, final),) = resolved_finals(project)
    assert final["c_evidence"] == [0, 2] and payload["reference"]["answer"] == "B"
    summary = adjudication_summary(project)
    assert summary["final_vs_reference_items"] == 1
    assert summary["final_vs_reference_Task2_F1"] == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert summary["final_vs_reference_Task3_Acc"] == 1.0


def test_items_imported_without_labels_are_not_scored():
    assert final_reference_scores([({}, {"answer": "A"})]) == {"final_vs_reference_items": 0}
