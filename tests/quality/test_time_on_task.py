"""Time on task in the report and the exports: off, a run and every export are byte-identical to
a run without the rule (the settings named but unset change nothing); on, the raw export gains
`page_seconds` and the flags and nothing else changes; the report's section lists the flags (the
first few, with the count), each annotator's figures and the decisions by rule."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.naming import annotator_name
from quality import speed
from quality.models import ResponseDecision
from quality.services.runs import quality_run_create
from tests.quality.export_projects import build_recam
from tests.quality.test_export_bytes import PINNED, digests, export_bytes

pytestmark = pytest.mark.django_db

OFF = {
    "too_fast_seconds": None,
    "too_fast_page_seconds": {},
    "too_fast_median_share": None,
    "drop_too_fast": False,
    "max_too_fast_share": None,
}


def test_the_settings_unset_leave_the_run_and_every_export_as_before():
    project = build_recam()
    before = quality_run_create(project=project)
    values_before = list(
        ResponseDecision.objects.filter(run=before).order_by("response_id").values("keep", "reasons", "values")
    )
    after = quality_run_create(project=project, overrides=OFF)
    assert after.status == "done", after.error
    assert after.report == before.report and "time_on_task" not in after.report
    values_after = list(
        ResponseDecision.objects.filter(run=after).order_by("response_id").values("keep", "reasons", "values")
    )
    assert values_after == values_before
    expected = {key: value for key, value in PINNED.items() if key.startswith("recam/run/")}
    assert digests(project, "run") == expected


def test_with_the_rule_on_the_raw_export_gains_the_times_and_flags_only():
    project = build_recam()
    quality_run_create(project=project)
    before = [json.loads(line) for line in export_bytes(project, "raw", "jsonl").splitlines()]
    run = quality_run_create(project=project, overrides={"too_fast_page_seconds": 2, "too_fast_seconds": 10})
    assert run.status == "done", run.error
    after = [json.loads(line) for line in export_bytes(project, "raw", "jsonl").splitlines()]
    added = ["page_seconds", "too_fast", "too_fast_threshold", "too_fast_pages"]
    assert [{k: v for k, v in row.items() if k not in added} for row in after] == before
    names = list(after[0])
    assert names[names.index("seconds") + 1] == "page_seconds" and names[-3:] == added[1:]
    judged = {d.response_id: d.values for d in ResponseDecision.objects.filter(run=run)}
    for row in after:
        timings = Response.objects.get(pk=row["response_id"]).timings
        timed = {page: t["seconds"] for page, t in timings.items() if t.get("seconds") is not None}
        assert row["page_seconds"] == (timed or None)
        values = judged.get(row["response_id"])  # work not confirmed is not judged: empty flags
        assert row["too_fast"] == (values["too_fast"] if values else None)
        assert row["too_fast_pages"] == (values["too_fast_pages"] if values else None)
    assert any(row["too_fast_pages"] for row in after)
    header = export_bytes(project, "clean", "csv").split(b"\r\n")[0].decode()
    assert "page_seconds" in header and "too_fast_pages" in header


def paced(annotated, fast: str = "careless") -> None:
    """Every page took 20 s, except the `fast` annotator's pages (1 s each)."""
    for response in Response.objects.filter(item__project=annotated.project).select_related("assignment"):
        seconds = 1.0 if response.assignment.annotator_id == annotated.annotators[fast].pk else 20.0
        timings = {page: {**t, "seconds": seconds} for page, t in response.timings.items()}
        Response.objects.filter(pk=response.pk).update(timings=timings)


def test_the_report_lists_flags_annotators_and_decisions_by_rule(annotated, staff_client, monkeypatch):
    monkeypatch.setattr(speed, "FLAGGED_SHOWN", 3)
    paced(annotated)
    careless = annotated.annotators["careless"]
    run = quality_run_create(
        project=annotated.project, overrides={"too_fast_page_seconds": {"pre": 5, "post": 5}, "max_too_fast_share": 0.5}
    )
    section = run.report["time_on_task"]
    answers = Response.objects.filter(assignment__annotator=careless, completed_at__isnull=False).count()
    named = annotator_name(careless.pk, careless.external_id)  # one name everywhere: "#3 (1-…)"
    assert section["n_answers_flagged"] == answers and section["n_flagged"] == 2 * answers
    assert len(section["flagged"]) == 3 and {r["annotator"] for r in section["flagged"]} == {named}
    assert section["flagged"][0] | {"response_id": 0, "item_id": 0, "item": ""} == {
        "response_id": 0,
        "item_id": 0,
        "item": "",
        "annotator": named,
        "page": "pre",
        "seconds": 1.0,
        "threshold": 5.0,
        "dropped": True,
    }
    first = section["annotators"][0]
    assert first == {
        "annotator": named,
        "timed": answers,
        "flagged": answers,
        "share": 1.0,
        "median_seconds": 7.0,
        "dropped": True,  # 7 pages of 1 s each
    }
    assert section["decisions"] == [{"rule": "max_too_fast_share", "annotators": 1, "answers": answers}]

    page = staff_client.get(reverse("quality:report", args=[annotated.project.pk])).content.decode()
    assert 'id="time-on-task"' in page and f"The first 3 of {2 * answers} flags are shown" in page
    assert "max_too_fast_share: annotators with more of their answers flagged are dropped" in page
    assert "100.0 %" in page and "too_fast_page_seconds = {" in page
    download = staff_client.get(reverse("quality:report_download", args=[annotated.project.pk, run.pk])).content
    assert b'id="time-on-task"' in download
    admin_page = staff_client.get(reverse("admin:quality_qualityrun_change", args=[run.pk])).content.decode()
    assert 'id="time-on-task"' in admin_page and careless.external_id in admin_page


def test_no_section_without_the_rule(annotated, staff_client):
    paced(annotated)
    quality_run_create(project=annotated.project)
    page = staff_client.get(reverse("quality:report", args=[annotated.project.pk])).content.decode()
    assert "Time on task per annotator" in page and 'id="time-on-task"' not in page  # the plot only
