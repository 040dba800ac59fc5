"""Every export holds what the latest quality run decided (issue 36, item 6): per kind, after the
researcher rejected an annotation the rules kept (and accepted one they dropped, where there is
one), the clean, decisions and items datasets and the kind's own formats are compared row by
row with the run's decisions. The items' figures count only kept annotations; a per-annotation
format lists exactly the kept ones."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from annotation.models import Project, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.exports.datasets import EXACT, project_datasets
from quality.models import QualityRun, ResponseDecision
from quality.services.decisions import response_decide
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import ProjectFactory, save_answer
from tests.quality.export_projects import build_cosimlex, build_recam

pytestmark = pytest.mark.django_db


def rows(project: Project, name: str) -> list[dict[str, Any]]:
    builder, _ = project_datasets(project)[name]
    return list(builder(project, EXACT).rows())


def item_rows(project: Project, name: str) -> list[tuple[int, dict[str, Any]]]:
    builder, _ = project_datasets(project)[name]
    return list(builder(project, EXACT).item_rows())


def decide_and_run(project: Project) -> tuple[QualityRun, set[int]]:
    """Run once; reject the first kept annotation and accept the first complete one the rules
    dropped; run again. The second run's kept response ids."""
    first = quality_run_create(project=project)
    assert first.status == "done", first.error
    decided = ResponseDecision.objects.filter(run=first, response__completed_at__isnull=False).order_by("response_id")
    rejected = decided.filter(keep=True).first()
    assert rejected is not None
    response_decide(response=rejected.response, decision="reject", note="copied", by=None)
    # another item's, so that the two verdicts cannot cancel out in an item's figures
    accepted = decided.filter(keep=False).exclude(response__item_id=rejected.response.item_id).first()
    if accepted is not None:
        response_decide(response=accepted.response, decision="accept", note="", by=None)
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    kept = set(ResponseDecision.objects.filter(run=run, keep=True).values_list("response_id", flat=True))
    assert rejected.response_id not in kept
    if accepted is not None:
        assert accepted.response_id in kept
    return run, kept


def kept_per_item(kept: set[int]) -> Counter:
    """How many complete annotations the run keeps per item id."""
    done = Response.objects.filter(pk__in=kept, completed_at__isnull=False)
    return Counter(done.values_list("item_id", flat=True))


def assert_standard_datasets_follow(project: Project, run: QualityRun, kept: set[int]) -> None:
    assert {row["response_id"] for row in rows(project, "clean")} == kept
    decisions = {row["response_id"]: row["keep"] for row in rows(project, "decisions")}
    assert {rid for rid, keep in decisions.items() if keep} == kept
    assert any("rejected by researcher: copied" in row["reasons"] for row in rows(project, "decisions"))


def assert_counts_follow(project: Project, kept: set[int], column: str) -> None:
    """The items export's count of kept annotations, item by item (none for an item nobody
    annotated: the run has no figures of it)."""
    per_item = kept_per_item(kept)
    found = {item_id: row[column] for item_id, row in item_rows(project, "items") if row[column] is not None}
    assert found == {item_id: per_item.get(item_id, 0) for item_id in found} and set(per_item) <= set(found)


def test_recam():
    project = build_recam()
    run, kept = decide_and_run(project)
    assert_standard_datasets_follow(project, run, kept)
    assert_counts_follow(project, kept, "n_kept")


def test_cosimlex():
    """The released scores are the means of the kept ratings (rating_scaled, as clean carries them)."""
    project = build_cosimlex()
    run, kept = decide_and_run(project)
    assert_standard_datasets_follow(project, run, kept)
    scaled: dict[int, list[float]] = {}
    for row in rows(project, "clean"):
        if row.get("rating_scaled") is not None:
            scaled.setdefault(row["item_id"], []).append(float(row["rating_scaled"]))
    items = dict(item_rows(project, "items"))
    assert items
    for item_id, row in items.items():  # a pair's row comes from its first context's item
        ratings = scaled.get(item_id)
        expected = "" if not ratings else f"{sum(ratings) / len(ratings):.3g}"
        assert float(row["sim1"] or "nan") == pytest.approx(float(expected or "nan"), rel=1e-3, nan_ok=True)


def _gcrc_project() -> Project:
    from tests.gcrc.test_export import FIRST, RECORD, SECOND

    project = ProjectFactory(kind="gcrc", language="zh-hans")
    other = {**RECORD, "id": "gcrc_hand_2"}
    items_import(project=project, data=json.dumps({"data": [RECORD, other]}, ensure_ascii=False).encode())
    _annotate(project, [FIRST, SECOND, FIRST], items_per_unit=2)
    return project


def _annotate(project: Project, answers: list[dict[str, Any]], *, items_per_unit: int) -> None:
    """Each of `answers` given by one more annotator to every item of one unit."""
    from annotation.services.assignments import annotator_join_via_invite, assignment_next

    batch = batch_create(project=project, name="b", items_per_unit=items_per_unit, assignments_per_unit=len(answers))
    invite = invite_link_create(batch=batch)
    for pages in answers:
        annotator = annotator_join_via_invite(invite=invite)
        for response in assignment_next(annotator=annotator, batch=batch).responses.all():
            for page, answer in pages.items():
                save_answer(response.pk, page, answer)


def test_gcrc():
    """gcrc_annotations holds one row per kept annotation (issue 36: 8 rows where clean had 7)."""
    project = _gcrc_project()
    run, kept = decide_and_run(project)
    assert_standard_datasets_follow(project, run, kept)
    assert_counts_follow(project, kept, "annotation_count")
    listed = [row["response_id"] for row in rows(project, "gcrc_annotations")]
    assert sorted(listed) == sorted(kept) and len(listed) == len(kept) == 5


def test_scde(client):
    from tests.scde.test_service_flow import answer_unit, import_file, invite_to

    project = ProjectFactory(kind="scde", name="SCDE")
    import_file(project, "made_up.dev.json")
    invite = invite_to(project)
    for _ in range(2):
        answer_unit(
            client, invite, lambda p: [p["gold"][str(b)] for b in p["blanks"]], visible_ms=300_000, shown_ago=400
        )
        client.logout()
    run, kept = decide_and_run(project)
    assert_standard_datasets_follow(project, run, kept)
    per_item = kept_per_item(kept)
    sequences = {item_id: row["worker_answer_sequences"] for item_id, row in item_rows(project, "worker_answers")}
    assert {item_id: len(found) for item_id, found in sequences.items()} == {i: per_item.get(i, 0) for i in sequences}
    assert sorted(per_item.values()) == [1, 2, 2]
    items = dict(item_rows(project, "items"))
    assert {item_id: row["human_n_kept"] for item_id, row in items.items()} == dict(per_item)


def test_task_file():
    example = data_file("..", "..", "examples", "tasks", "sentiment")
    project = ProjectFactory(kind="task_file", task_file=(example / "task.yaml").read_text())
    items_import(project=project, data=(example / "reviews.jsonl").read_bytes(), filename="reviews.jsonl")
    choices = ("positive", "neutral", "negative")
    _annotate(project, [{"rate": {"sentiment": choice}} for choice in choices], items_per_unit=3)
    run, kept = decide_and_run(project)
    assert_standard_datasets_follow(project, run, kept)
    assert_counts_follow(project, kept, "n_kept")
