"""Results for every label level (issue 36, item 5), end to end: an ESA-style task-file project
(error spans with a severity in a translation, a 0-100 slider score, a fluency Likert read as
interval), three annotators' answers saved through the real forms and save service, a quality
run, and the items export holding each item's mean score, z-score mean and agreed spans, checked
against numbers worked out by hand here."""

from __future__ import annotations

import csv
import io
import json
import re
import statistics

import pytest
from django.urls import reverse

from annotation.kinds import kind_of
from annotation.models import Project
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import export_open
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

pytestmark = pytest.mark.django_db

ESA = data_file("task_files", "esa.yaml").read_text(encoding="utf-8")
SEGMENTS = {
    "s1": "The cat sat on the mat yesterday.",
    "s2": "He go to school by bus every day.",
    "s3": "The weather is nice and warm today.",
}
SCORES = {"s1": (80, 70, 90), "s2": (40, 30, 65), "s3": (95, 85, 100)}  # annotators A, B, C
FLUENCY = {"s1": (4, 4, 5), "s2": (2, 3, 3), "s3": (5, 4, 5)}


def marked(segment: str, start: int, end: int, label: str) -> dict:
    return {"start": start, "end": end, "label": label, "text": SEGMENTS[segment][start:end]}


SPANS = {
    "s1": ([], [marked("s1", 23, 32, "minor")], []),  # "yesterday" by B alone
    "s2": (
        [marked("s2", 3, 5, "major")],  # "go"
        [marked("s2", 3, 5, "major"), marked("s2", 19, 22, "minor")],  # "go", "bus"
        [marked("s2", 3, 8, "minor")],  # "go to"
    ),
    "s3": ([marked("s3", 15, 19, "minor")], [marked("s3", 15, 28, "minor")], []),  # "nice", "nice and warm"
}
# by hand, character by character: a character is agreed when 2 of the 3 marked it
AGREED = {
    "s1": [],  # one of three
    "s2": [{"start": 3, "end": 5, "text": "go", "label": "major"}],  # A, B major and C minor: major
    "s3": [{"start": 15, "end": 19, "text": "nice", "label": "minor"}],  # "and warm" by B alone
}


def esa_project() -> Project:
    project = project_create(name="ESA", team=TeamFactory(), task_file=ESA)
    records = [{"segment_id": k, "source": f"Quelle {k}.", "translation": v} for k, v in SEGMENTS.items()]
    items_import(project=project, data="\n".join(json.dumps(r) for r in records).encode(), filename="esa.jsonl")
    batch = batch_create(project=project, name="b1", items_per_unit=3, assignments_per_unit=3)
    invite = invite_link_create(batch=batch)
    kind = kind_of(project)
    for who in range(3):
        assignment = assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch)
        for response in assignment.responses.select_related("item").order_by("position"):
            payload, segment = response.item.payload, response.item.payload["segment_id"]
            data = {
                "errors": {"esa_spans": json.dumps(SPANS[segment][who])},
                "score": {
                    "esa_score": str(SCORES[segment][who]),
                    "esa_score-keep": "on",
                    "fluency": str(FLUENCY[segment][who]),
                },
            }
            while (slug := next_page_slug(kind, payload, response.answers)) is not None:
                form = kind.page(payload, slug, response.answers).form_class(
                    data[slug], payload=payload, answers=response.answers
                )
                assert form.is_valid(), (slug, form.errors)
                save_answer(response.pk, slug, form.answer())
                response.refresh_from_db()
    return project


def z_means(table: dict[str, tuple]) -> dict[str, float]:
    """WMT's z: each score standardised by its annotator's mean and sample SD over all items."""
    columns = list(zip(*table.values()))
    stats = [(statistics.mean(c), statistics.stdev(c)) for c in columns]
    return {
        segment: statistics.mean((x - m) / s for x, (m, s) in zip(scores, stats)) for segment, scores in table.items()
    }


def export_rows(project: Project, fmt: str) -> list[dict]:
    text = b"".join(export_open(project=project, dataset="items", fmt=fmt).chunks).decode()
    if fmt == "jsonl":
        return [json.loads(line) for line in text.splitlines()]
    return list(csv.DictReader(io.StringIO(text)))


def test_the_items_export_holds_each_items_mean_z_and_agreed_spans():
    project = esa_project()
    run = quality_run_create(project=project)
    assert run.status == "done" and run.response_decisions.filter(keep=True).count() == 9
    rows = {row["segment_id"]: row for row in export_rows(project, "jsonl")}
    z_score, z_fluency = z_means(SCORES), z_means(FLUENCY)
    assert rows["s1"]["esa_score_mean"] == 80 and rows["s2"]["esa_score_median"] == 40
    for segment, scores in SCORES.items():
        row = rows[segment]
        assert row["esa_score_mean"] == pytest.approx(statistics.mean(scores))
        assert row["esa_score_sd"] == pytest.approx(statistics.stdev(scores))
        assert row["esa_score_z"] == pytest.approx(z_score[segment])
        assert row["fluency_mean"] == pytest.approx(statistics.mean(FLUENCY[segment]))
        assert row["fluency_z"] == pytest.approx(z_fluency[segment])
        assert min(scores) <= row["esa_score_ci_low"] <= row["esa_score_mean"] <= row["esa_score_ci_high"]
        assert row["esa_spans_spans"] == AGREED[segment]
    assert rows["s2"]["esa_spans_span_counts"] == {"major": 2, "minor": 2}
    assert rows["s3"]["esa_spans_span_counts"] == {"minor": 2}

    cells = {row["segment_id"]: row for row in export_rows(project, "csv")}  # spans as JSON in a cell
    assert json.loads(cells["s2"]["esa_spans_spans"]) == AGREED["s2"]
    assert float(cells["s3"]["esa_score_z"]) == pytest.approx(z_score["s3"])


def test_the_run_reports_icc_and_span_f1_instead_of_kappa():
    run = quality_run_create(project=esa_project())
    score = run.report["agreement"]["esa_score"]
    assert score["cohen"] is None and score["fleiss"] is None and "37 and 38" in score["not_applicable"]["cohen"]
    # ICC(1) by hand from the one-way ANOVA of the three items' scores
    means, grand = [statistics.mean(s) for s in SCORES.values()], statistics.mean(sum(SCORES.values(), ()))
    msb = sum(3 * (m - grand) ** 2 for m in means) / 2
    msw = sum((x - m) ** 2 for s, m in zip(SCORES.values(), means) for x in s) / 6
    assert score["icc"]["single"] == pytest.approx((msb - msw) / (msb + 2 * msw))
    assert score["icc"]["average"] == pytest.approx((msb - msw) / msb)
    spans = run.report["spans"]["esa_spans"]
    # exact: A-B 1 shared of 1+2, 0+1, 1+1 spans -> 2/6; A-C 0; B-C 0 -> mean 1/9
    assert spans["exact_f1"] == pytest.approx((2 / 6 + 0 + 0) / 3)
    assert spans["labels"] == {"major": {"marked": 2, "agreed": 1}, "minor": {"marked": 5, "agreed": 1}}
    assert spans["items_with_spans"] == 2


def row_of(html: str, table: str, field: str) -> str:
    """The row of `field` in the first table after `table` (a piece of its opening tag)."""
    after = html[html.index(table) :]
    return re.search(rf'<tr data-field="{field}">(.*?)</tr>', after, re.S).group(1)


def test_the_report_has_a_section_per_interval_and_span_field_and_no_kappa_for_scores(admin_client):
    project = esa_project()
    run = quality_run_create(project=project)
    html = admin_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    agreement = row_of(html, 'id="agreement"', "esa_score")
    assert 'data-figure="cohen"><span class="missing" title="kappa treats every value' in agreement
    assert 'data-figure="fleiss"><span class="missing"' in agreement
    assert "37 and 38" in agreement  # the reason, in the row's note
    icc = run.report["agreement"]["esa_score"]["icc"]["single"]
    assert f'data-figure="icc">{icc:.3f}<' in row_of(html, 'class="figures scores"', "esa_score")
    assert 'data-field="fluency"' in html[html.index('class="figures scores"') :]
    spans = row_of(html, 'class="figures spans"', "esa_spans")
    assert f'data-figure="exact_f1">{1 / 9:.3f}<' in spans
    assert "major: 2 / 1" in spans and "minor: 5 / 1" in spans
    assert "Two measures of one field may disagree" in html


def test_the_hub_folder_types_the_scores_and_the_agreed_spans(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from quality.exports.hub import hub_folder_write

    project = esa_project()
    quality_run_create(project=project)
    hub_folder_write(project=project, directory=tmp_path)
    table = pq.read_table(tmp_path / "items" / "train.parquet")
    schema = table.schema
    spans = schema.field("esa_spans_spans").type  # a list of structs, not JSON text
    assert pa.types.is_list(spans) and pa.types.is_struct(spans.value_type)
    # as a dict: PostgreSQL's jsonb stores an object's keys in its own order, so the struct's follow it
    assert {f.name: f.type for f in spans.value_type} == {
        "start": pa.int64(),
        "end": pa.int64(),
        "text": pa.string(),
        "label": pa.string(),
    }
    assert schema.field("esa_score_z").type == pa.float64() and schema.field("fluency_mean").type == pa.float64()
    rows = {row["segment_id"]: row for row in table.to_pylist()}
    assert rows["s3"]["esa_spans_spans"] == AGREED["s3"]
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "`esa_score`: ICC(1)" in card and "`<field>_spans` is the list of spans a majority marked" in card


def test_a_stored_value_that_is_not_a_score_or_spans_names_field_item_and_annotator():
    import pandas as pd

    from annotation.kinds import LabelField
    from annotation.kinds.results import column_label
    from quality.agreement import BOOTSTRAP
    from quality.level_results import level_results

    kept = pd.DataFrame({"item_id": [1, 1], "annotator_id": [5, 6], "score": [40, "lots"], "marks": [[], "oops"]})
    score = LabelField("score", "interval", column_label("score"))
    with pytest.raises(ValueError, match="label field 'score': interval value 'lots' of item 1 by annotator 6"):
        level_results(kept, [score], BOOTSTRAP)
    marks = LabelField("marks", "set", column_label("marks"), spans=column_label("marks"))
    with pytest.raises(ValueError, match="label field 'marks': the spans of item 1 by annotator 6 are not a list"):
        level_results(kept, [marks], BOOTSTRAP)
