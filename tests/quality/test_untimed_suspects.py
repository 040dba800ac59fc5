"""Issue 37, point 3 (`untimed_saves: suspect`): a page saved without a valid note of when it was
shown is stored with its time unknown and the reason, and any too-fast rule that is on judges the
answer as too fast, so a bot that dodges the note never beats an honest fast annotator. Answers
untimed for another reason (imported without times) are still never flagged."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Response
from annotation.services.imports import items_import
from quality.models import AnnotatorDecision, ResponseDecision
from quality.report.time_on_task import time_on_task_context
from quality.services.runs import quality_run_create
from tests.factories import TeamFactory, UserFactory
from tests.quality.test_label_studio_annotations import LS_EXPORT, new_project

pytestmark = pytest.mark.django_db

HONEST, FAST = {"pre": {"seconds": 60.0}}, {"pre": {"seconds": 20.0}}
#: what a page's save under `untimed_saves: suspect` stores without its note (and a later page timed)
SUSPECT = {"pre": {"shown_at": None, "seconds": None, "untimed": "malformed"}, "post": {"seconds": 1.0}}


def timed(annotated) -> dict[str, set[int]]:
    """good_a honest (60 s), careless an honest fast annotator (20 s), sloppy a bot that dodged the
    note; good_b's times unknown as an import leaves them (no note, no flag). Response ids by role."""
    times = {"good_a": HONEST, "careless": FAST, "sloppy": SUSPECT, "good_b": {"pre": {"seconds": None}}}
    ids: dict[str, set[int]] = {}
    for role, timings in times.items():
        mine = Response.objects.filter(assignment__annotator=annotated.annotators[role], completed_at__isnull=False)
        mine.update(timings=timings)
        ids[role] = set(mine.values_list("pk", flat=True))
    return ids


def flagged(run) -> set[int]:
    return {d.response_id for d in ResponseDecision.objects.filter(run=run) if d.values.get("too_fast")}


def test_the_bot_is_flagged_and_dropped_beside_the_honest_fast_annotator(annotated):
    ids = timed(annotated)
    run = quality_run_create(project=annotated.project, overrides={"too_fast_seconds": 30, "drop_too_fast": True})
    assert run.status == "done", run.error
    assert flagged(run) == ids["careless"] | ids["sloppy"]
    decisions = {d.response_id: d for d in ResponseDecision.objects.filter(run=run)}
    for rid in ids["sloppy"]:
        assert not decisions[rid].keep and decisions[rid].values["seconds"] is None
        assert (
            "time unknown (saved without its page's valid timing note), judged below the too-fast threshold of 30.0 s"
            in decisions[rid].reasons
        )
    assert all(decisions[rid].keep or "too-fast" not in " ".join(decisions[rid].reasons) for rid in ids["good_b"])
    assert run.report["summary"]["dropped_too_fast"] == len(ids["careless"] | ids["sloppy"])
    rows = [row for row in run.report["time_on_task"]["flagged"] if row["response_id"] in ids["sloppy"]]
    assert rows and all(row["untimed"] and row["seconds"] is None for row in rows)
    shown = time_on_task_context(run.report["time_on_task"], run.parameters)
    assert {row["seconds"] for row in shown["flagged"] if row["response_id"] in ids["sloppy"]} == {
        "unknown (saved untimed)"
    }


def test_the_median_rule_judges_the_suspects_and_leaves_them_out_of_the_median(annotated):
    ids = timed(annotated)
    run = quality_run_create(project=annotated.project, overrides={"too_fast_median_share": 0.5})
    assert flagged(run) == ids["careless"] | ids["sloppy"]  # 20 s < half of the 60 s median
    thresholds = {
        d.values["too_fast_threshold"] for d in ResponseDecision.objects.filter(run=run, response_id__in=ids["sloppy"])
    }
    assert thresholds <= {10.0, 30.0}, thresholds  # half of a median of the timed answers (20 or 60 s) only


def test_the_page_rule_flags_the_untimed_page(annotated):
    ids = timed(annotated)
    run = quality_run_create(project=annotated.project, overrides={"too_fast_page_seconds": {"pre": 5}})
    assert flagged(run) == ids["sloppy"]
    pages = ResponseDecision.objects.get(run=run, response_id=min(ids["sloppy"])).values["too_fast_pages"]
    assert pages == {"pre": {"seconds": None, "threshold": 5.0, "untimed": True}}


def test_a_bot_with_every_answer_suspect_is_dropped_by_the_share_rule(annotated):
    timed(annotated)
    run = quality_run_create(project=annotated.project, overrides={"too_fast_seconds": 1, "max_too_fast_share": 0.5})
    sloppy = AnnotatorDecision.objects.get(run=run, annotator=annotated.annotators["sloppy"])
    careless = AnnotatorDecision.objects.get(run=run, annotator=annotated.annotators["careless"])
    assert not sloppy.keep and sloppy.metrics["too_fast_share"] == 1.0
    assert careless.metrics["too_fast_share"] == 0.0


def test_answers_imported_without_times_are_not_suspects():
    project = new_project("imported")
    items_import(project=project, data=LS_EXPORT, filename="export.json")
    Response.objects.filter(item__project=project).update(timings={"classify": {"seconds": None}})
    run = quality_run_create(project=project, overrides={"too_fast_seconds": 30, "drop_too_fast": True})
    assert run.status == "done", run.error
    assert not flagged(run)


def test_the_api_takes_either_choice_and_refuses_anything_else():
    TeamFactory()
    client = APIClient()
    client.force_authenticate(UserFactory(is_staff=True, is_superuser=True))
    body = {"name": "P", "kind": "recam", "language": "en"}
    made = client.post("/api/projects/", {**body, "settings": {"untimed_saves": "suspect"}}, format="json")
    assert made.status_code == 201, made.content
    refused = client.post("/api/projects/", {**body, "settings": {"untimed_saves": "flag"}}, format="json")
    assert refused.status_code == 400 and "untimed_saves" in refused.content.decode()
    assert "must be one of refuse, suspect" in refused.content.decode()
