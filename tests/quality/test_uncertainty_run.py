"""A quality run's aggregated labels with their uncertainty, on a real small project: the items
export's columns per label field (label, posterior, interval, method), the project's method per
field, and the report's section (confidence plots, each annotator's competence with its interval)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotation.kinds import kind_of
from annotation.naming import annotator_name
from quality.agreement import aggregate_columns
from quality.exports import export_open
from quality.models import RunPlot
from quality.selectors import run_uncertainty
from quality.services.runs import quality_run_create
from quality.uncertainty import UNCERTAINTY_SUFFIXES

pytestmark = pytest.mark.django_db


def items_rows(project, fmt: str = "jsonl") -> list[dict]:
    body = b"".join(export_open(project=project, dataset="items", fmt=fmt).chunks).decode("utf-8")
    if fmt == "jsonl":
        return [json.loads(line) for line in body.splitlines()]
    return list(csv.DictReader(io.StringIO(body, newline="")))


def test_the_items_export_carries_each_fields_label_posterior_interval_and_method(annotated):
    project = annotated.project
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    rows = items_rows(project)
    assert len(rows) == 20
    fields = [f.name for f in kind_of(project).label_fields()]
    for name in fields:
        for suffix in UNCERTAINTY_SUFFIXES:
            assert f"{name}_{suffix}" in rows[0]
    header = next(
        csv.reader(io.StringIO(b"".join(export_open(project=project, dataset="items", fmt="csv").chunks).decode()))
    )
    assert [c for c in header if c in set(aggregate_columns(kind_of(project).label_fields()))] == aggregate_columns(
        kind_of(project).label_fields()
    )  # the columns declared once, in their order
    for row in rows:  # auto: the run keeps two annotators' answers (good_a, good_b): too few for a model
        assert row["post_choice_method"] == "majority"
        assert 0 <= row["post_choice_posterior_low"] <= row["post_choice_posterior_high"] <= 1
        assert 0 < row["post_choice_posterior"] <= 1
    # the careless annotator was dropped: the three kept agree on the answer after reading
    agreed = [r for r in rows if r["post_choice_majority_share"] == 1.0]
    assert agreed and all(r["post_choice_label"] == r["post_choice_majority"] for r in agreed)
    assert all(r["post_choice_posterior_low"] > 0.9 for r in agreed)


def test_the_method_per_field_and_rounds_are_the_projects_settings(annotated):
    project = annotated.project
    project.settings = {"aggregation_method": {"difficulty": "majority", "post_choice": "mace"}, "bootstrap_rounds": 0}
    project.save()
    quality_run_create(project=project)
    rows = items_rows(project)
    assert {r["difficulty_method"] for r in rows} == {"majority"} and {r["post_choice_method"] for r in rows} == {
        "mace"
    }
    assert {r["pre_choice_method"] for r in rows} == {"majority"}  # auto, as above
    for row in rows:
        assert row["difficulty_posterior"] == pytest.approx(row["difficulty_majority_share"])
        if not row["difficulty_majority_tie"]:
            assert row["difficulty_label"] == row["difficulty_majority"]
        else:
            assert row["difficulty_label"] is None
        assert row["difficulty_posterior_low"] is None and row["difficulty_posterior_high"] is None  # rounds 0
    csv_rows = items_rows(project, "csv")
    assert csv_rows[0]["difficulty_method"] == "majority" and csv_rows[0]["difficulty_posterior_low"] == ""


def test_two_runs_on_the_same_labels_export_the_same_intervals(annotated):
    project = annotated.project
    quality_run_create(project=project)
    first = items_rows(project)
    quality_run_create(project=project)
    assert items_rows(project) == first


def test_a_wrong_setting_fails_the_run_with_the_reason(annotated):
    project = annotated.project
    project.settings = {"aggregation_method": {"sentiment": "mace"}}
    project.save()
    with pytest.raises(ValueError, match="unknown field"):
        quality_run_create(project=project)
    run = project.quality_runs.get()
    assert run.status == "failed" and "sentiment" in run.error


def test_the_report_shows_item_confidence_and_each_annotators_competence(staff_client, annotated):
    project = annotated.project
    run = quality_run_create(project=project)
    uncertainty = run_uncertainty(run)
    assert list(uncertainty)[:2] == ["post_choice", "pre_choice"]  # the kind's order
    competence = uncertainty["post_choice"]["annotators"]
    kept = {  # the rest dropped; one name everywhere: number and channel id
        annotator_name(a.pk, a.external_id) for a in (annotated.annotators[r] for r in ("good_a", "good_b"))
    }
    assert {a["name"] for a in competence} == kept
    for a in competence:
        assert a["low"] <= a["competence"] <= a["high"]
    plots = set(RunPlot.objects.filter(run=run).values_list("name", flat=True))
    assert {f"confidence_{name}" for name in uncertainty} <= plots
    svg = RunPlot.objects.get(run=run, name="confidence_post_choice").svg
    assert svg.startswith("<?xml") and "<svg" in svg

    html = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert 'id="uncertainty"' in html and "Annotators' competence on Answer after reading, by majority (auto)" in html
    table = html[html.index('class="figures competence" data-field="post_choice"') :]
    table = table[: table.index("</table>")]
    first = competence[0]
    assert f"<td>{first['name']}</td>" in table or first["name"] in table
    assert f"[{first['low']:.3f}, {first['high']:.3f}]" in table
    assert 'data-plot="confidence_post_choice"' in html

    download = staff_client.get(reverse("quality:report_download", args=[project.pk, run.pk]))
    body = b"".join(download.streaming_content if download.streaming else [download.content]).decode()
    assert "Aggregated labels and how sure they are" in body and "Item confidence: Answer after reading" in body


def test_a_field_one_annotator_labelled_says_it_has_no_interval():
    """Resampling one annotator draws the same labels every time: [1.000, 1.000] would read as
    certainty, so the competence row says there is no interval."""
    from quality.report.context import ONE_ANNOTATOR, uncertainty_rows

    alone = {"a": {"method": "majority", "annotators": [{"name": "3", "competence": 1.0, "low": 1.0, "high": 1.0}]}}
    two = {"a": {"method": "majority", "annotators": [{"name": "3", "competence": 1.0, "low": 0.5, "high": 1.0}] * 2}}
    assert uncertainty_rows(alone)[0]["annotators"][0]["interval"] == ONE_ANNOTATOR == "one annotator: no interval"
    assert uncertainty_rows(two)[0]["annotators"][0]["interval"] == "[0.500, 1.000]"
