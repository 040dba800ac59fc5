"""Quality runs on a project annotated through the real services (see conftest.HABITS)."""

from __future__ import annotations

import pytest

from annotation.kinds import GENERIC_SETTINGS
from annotation.kinds.recam import ReCAM
from annotation.models import Response, UnitItem
from quality.models import AnnotatorDecision, ItemResult, QualityRun, ResponseDecision
from quality.selectors import latest_run, run_with_counts
from quality.services.runs import quality_run_create, quality_run_execute, quality_run_request
from quality.tasks import run_quality
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

CARELESS = "annotator dropped: accuracy 0.0% on 10 labeled items is not above the minimum of 40%"


def decisions_of(run, annotator) -> dict[int, ResponseDecision]:
    return {d.response_id: d for d in run.response_decisions.filter(response__assignment__annotator=annotator)}


def item_at(project, unit: int, position: int):
    return UnitItem.objects.get(unit__batch__project=project, unit__position=unit, position=position).item


def test_annotator_decisions_and_reasons(annotated):
    run = quality_run_create(project=annotated.project)
    assert run.status == QualityRun.Status.DONE and run.finished_at is not None
    by_role = {role: AnnotatorDecision.objects.get(run=run, annotator=a) for role, a in annotated.annotators.items()}
    assert {role: d.keep for role, d in by_role.items()} == {
        "good_a": True,
        "good_b": True,
        "careless": False,
        "sloppy": True,
    }
    assert by_role["careless"].reasons == ["accuracy 0.0% on 10 labeled items is not above the minimum of 40%"]
    assert by_role["careless"].metrics.items() >= {"n_responses": 10, "n_gold": 10, "accuracy": 0.0}.items()
    assert by_role["good_b"].metrics.items() >= {"n_responses": 20, "n_gold": 20, "accuracy": 0.95}.items()
    assert (
        by_role["sloppy"].metrics.items() >= {"n_responses": 10, "n_gold": 9, "accuracy": 1.0}.items()
    )  # one incomplete


def test_response_decisions_and_reasons(annotated):
    run = quality_run_create(project=annotated.project)
    a = annotated.annotators
    assert ResponseDecision.objects.filter(run=run).count() == Response.objects.count() == 60
    assert all(d.keep and d.reasons == [] for d in decisions_of(run, a["good_a"]).values())
    assert all(not d.keep and d.reasons == [CARELESS] for d in decisions_of(run, a["careless"]).values())
    good_b = decisions_of(run, a["good_b"])
    dropped_b = [d for d in good_b.values() if not d.keep]
    assert len(dropped_b) == 1 and dropped_b[0].reasons == ["rated Easy but answered wrongly"]
    assert dropped_b[0].response.item == item_at(annotated.project, 3, 0)
    sloppy = sorted(decisions_of(run, a["sloppy"]).values(), key=lambda d: d.response_id)
    assert [d.reasons for d in sloppy] == [["supporting span is empty"]] * 9 + [
        ["incomplete: not every page was answered"]
    ]
    assert run.report["summary"] == {
        "responses": 60,
        "responses_kept": 39,
        "annotators": 4,
        "annotators_kept": 3,
        "min_accuracy": 0.4,
        "mean_annotator_accuracy": pytest.approx((1.0 + 0.95 + 0.0 + 1.0) / 4),
        "dropped_incomplete": 1,
        "dropped_low_accuracy_annotator": 10,
        "dropped_empty_span": 9,
        "dropped_easy_wrong": 1,
    }


def test_item_results(annotated):
    run = quality_run_create(project=annotated.project)
    assert ItemResult.objects.filter(run=run).count() == 20
    first = item_at(annotated.project, 0, 0)  # good_a (Easy), good_b, careless (dropped)
    assert (
        ItemResult.objects.get(run=run, item=first).diagnostics.items()
        >= {
            "n_annotations": 3,
            "n_kept": 2,
            "post_accuracy": 1.0,
            "pre_accuracy": 1.0,
            "second_answer_share": 0.0,
            "difficulty_easy": 1,
            "difficulty_medium": 1,
            "difficulty_difficult": 0,
            "majority_choice": first.payload["label"],
            "majority_share": 1.0,
        }.items()
    )
    hard = item_at(annotated.project, 3, 0)  # good_a kept; good_b Easy-but-wrong and sloppy (no span) dropped
    diagnostics = ItemResult.objects.get(run=run, item=hard).diagnostics
    assert (diagnostics["n_annotations"], diagnostics["n_kept"], diagnostics["difficulty_easy"]) == (3, 1, 1)
    last = item_at(annotated.project, 3, 4)  # sloppy never finished it
    assert ItemResult.objects.get(run=run, item=last).diagnostics["n_annotations"] == 2


def test_threshold_is_a_project_setting_and_strictly_above(recam_dev_bytes):
    from tests.quality.conftest import build_annotated_project

    built = build_annotated_project(recam_dev_bytes, settings={"min_accuracy": 0.95})
    run = quality_run_create(project=built.project)
    assert run.parameters == {**GENERIC_SETTINGS, **ReCAM.default_settings, "min_accuracy": 0.95}
    good_b = AnnotatorDecision.objects.get(run=run, annotator=built.annotators["good_b"])
    assert not good_b.keep  # 19/20 = 0.95 exactly is not "higher than"
    assert good_b.reasons == ["accuracy 95.0% on 20 labeled items is not above the minimum of 95%"]
    relaxed = quality_run_create(project=built.project, overrides={"min_accuracy": 0.9})
    assert relaxed.parameters["min_accuracy"] == 0.9
    assert AnnotatorDecision.objects.get(run=relaxed, annotator=built.annotators["good_b"]).keep


def test_rerun_makes_a_new_run_and_older_runs_stay(annotated):
    first = quality_run_create(project=annotated.project)
    second = quality_run_create(project=annotated.project, overrides={"require_spans": False})
    assert first.pk != second.pk and QualityRun.objects.count() == 2
    assert ResponseDecision.objects.filter(run=first).count() == 60
    assert ResponseDecision.objects.filter(run=second).count() == 60
    assert run_with_counts(first.pk).n_responses_kept == 39
    assert run_with_counts(second.pk).n_responses_kept == 48  # sloppy's 9 span-less answers come back
    assert latest_run(annotated.project) == second


def test_project_without_responses():
    run = quality_run_create(project=ProjectFactory(kind="recam"))
    assert run.status == QualityRun.Status.DONE
    assert run.report["summary"]["responses"] == 0 and run.report["note"] == "no responses yet"


def test_failed_run_keeps_its_error_and_is_not_latest(annotated, monkeypatch):
    good = quality_run_create(project=annotated.project)

    def broken(self, frame, settings):
        raise RuntimeError("rules exploded")

    monkeypatch.setattr(ReCAM, "quality", broken)
    with pytest.raises(RuntimeError):
        quality_run_create(project=annotated.project)
    failed = QualityRun.objects.get(status=QualityRun.Status.FAILED)
    assert failed.error == "RuntimeError: rules exploded" and failed.finished_at is not None
    assert not failed.response_decisions.exists()
    assert latest_run(annotated.project) == good
    monkeypatch.undo()
    assert quality_run_execute(run=failed).status == QualityRun.Status.DONE  # retried in place


def test_task_runs_inline_without_a_broker(annotated, staff):
    run_id = run_quality.delay(annotated.project.pk, staff.pk).get()
    run = QualityRun.objects.get(pk=run_id)
    assert run.status == QualityRun.Status.DONE and run.created_by == staff
    assert run_quality.delay(annotated.project.pk, run_id=run_id).get() == run_id  # a finished run stays as is
    assert QualityRun.objects.count() == 1


def test_request_enqueues_after_commit(annotated, staff, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = quality_run_request(project=annotated.project, by=staff)
        assert run.status == QualityRun.Status.RUNNING
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == QualityRun.Status.DONE and run.created_by == staff
    assert run.response_decisions.count() == 60
