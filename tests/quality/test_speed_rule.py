"""The too-fast rule in a real quality run (every kind gets it; off by default): answers flagged
with their times in the stored decisions, dropped when the settings say so, an annotator with
too many dropped with the reason, and the report's figures."""

import pytest
from django.urls import reverse

from annotation.models import Response
from quality.models import AnnotatorDecision, ResponseDecision
from quality.services.runs import quality_run_create

pytestmark = pytest.mark.django_db


def timed(annotated, fast: str = "careless") -> None:
    """Every completed answer took a minute, except the `fast` annotator's (2 s each)."""
    for response in Response.objects.filter(item__project=annotated.project).select_related("assignment"):
        seconds = 2.0 if response.assignment.annotator_id == annotated.annotators[fast].pk else 60.0
        Response.objects.filter(pk=response.pk).update(timings={"pre": {"seconds": seconds}})


def test_off_by_default_nothing_is_flagged_or_stored(annotated):
    timed(annotated)
    run = quality_run_create(project=annotated.project)
    assert run.status == "done", run.error
    assert "flagged_too_fast" not in run.report["summary"]
    assert not any("too_fast" in d.values for d in ResponseDecision.objects.filter(run=run))


def test_flagged_answers_keep_their_times_and_are_dropped_when_asked(annotated):
    timed(annotated)
    careless = annotated.annotators["careless"].pk
    flagged = quality_run_create(project=annotated.project, overrides={"too_fast_seconds": 10})
    decisions = ResponseDecision.objects.filter(run=flagged).select_related("response__assignment")
    fast = [d for d in decisions if d.values["too_fast"]]
    assert fast and {d.response.assignment.annotator_id for d in fast} == {careless}
    assert all(d.values["seconds"] == 2.0 and d.values["too_fast_threshold"] == 10.0 for d in fast)
    assert not any("too-fast" in r for d in fast for r in d.reasons)  # flagged, not dropped
    assert flagged.report["summary"]["flagged_too_fast"] == len(fast)

    dropped = quality_run_create(project=annotated.project, overrides={"too_fast_seconds": 10, "drop_too_fast": True})
    reasons = {
        d.response_id: d.reasons for d in ResponseDecision.objects.filter(run=dropped) if d.values.get("too_fast")
    }
    assert reasons and all(
        not d.keep for d in ResponseDecision.objects.filter(run=dropped, response_id__in=list(reasons))
    )
    assert all("answered in 2.0 s, below the too-fast threshold of 10.0 s" in r for r in reasons.values())
    assert dropped.report["summary"]["dropped_too_fast"] == len(reasons)


def test_an_annotator_with_too_many_fast_answers_is_dropped_with_the_share(annotated, staff_client):
    timed(annotated)
    run = quality_run_create(
        project=annotated.project, overrides={"too_fast_median_share": 0.5, "max_too_fast_share": 0.5}
    )
    careless = AnnotatorDecision.objects.get(run=run, annotator=annotated.annotators["careless"])
    assert not careless.keep
    assert any("answers too fast (100%, above the maximum of 50%)" in r for r in careless.reasons)
    assert careless.metrics["too_fast_share"] == 1.0
    assert (
        AnnotatorDecision.objects.get(run=run, annotator=annotated.annotators["good_a"]).metrics["too_fast_share"]
        == 0.0
    )
    page = staff_client.get(reverse("quality:report", args=[annotated.project.pk])).content.decode()
    assert "Annotations flagged too fast" in page and "Share of answers too fast" in page
