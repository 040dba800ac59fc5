"""Agreement, aggregation and the per-annotator agreement rule of a quality run."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotation.kinds import get_kind
from quality.agreement import BOOTSTRAP, aggregate_columns, agreement_json
from quality.frames import annotation_frame, kept_frame, label_frame
from quality.models import AnnotatorDecision, ItemResult, ResponseDecision, RunPlot
from quality.services.runs import quality_run_create
from quality.stats.agreement import field_agreement
from quality.stats.labels import clean_labels, reliability_matrix
from tests.quality.conftest import build_annotated_project
from tests.quality.helpers import bulk_responses


def kept_annotations(run) -> pd.DataFrame:
    keep = pd.Series(dict(ResponseDecision.objects.filter(run=run).values_list("response_id", "keep")))
    return kept_frame(annotation_frame(run.project), keep)


def test_run_stores_what_field_agreement_gives_on_the_kept_annotations(annotated):
    run = quality_run_create(project=annotated.project)
    kept = kept_annotations(run)
    fields = get_kind("recam").label_fields()
    assert run.report["agreement_fields"] == [f.name for f in fields]
    for declared in fields:
        direct = field_agreement(label_frame(kept, declared), level=declared.level, order=declared.order, **BOOTSTRAP)
        assert run.report["agreement"][declared.name] == agreement_json(direct, declared)
    # and alpha against the krippendorff package itself, on the same labels
    matrix = reliability_matrix(clean_labels(label_frame(kept, fields[0])))
    reference = krippendorff.alpha(reliability_data=matrix.T.to_numpy(dtype=float), level_of_measurement="nominal")
    assert run.report["agreement"]["post_choice"]["alpha"]["value"] == pytest.approx(reference)
    assert run.report["agreement"]["difficulty"]["level"] == "ordinal"


def test_headline_counts_kept_and_dropped_by_reason(annotated):
    run = quality_run_create(project=annotated.project)
    headline = run.report["headline"]
    assert (headline["annotators"], headline["annotators_kept"], headline["annotators_dropped"]) == (4, 3, 1)
    assert headline["annotations"] == ResponseDecision.objects.filter(run=run).count()
    assert headline["annotations_kept"] == ResponseDecision.objects.filter(run=run, keep=True).count()
    assert headline["annotators_dropped_by_reason"] == {
        "accuracy 0.0% on 10 labeled items is not above the minimum of 40%": 1
    }
    assert headline["annotations_dropped_by_reason"]["annotator dropped"] == 10


def test_threshold_drops_an_annotator_below_kappa_with_the_reason(db, recam_dev_bytes):
    # min_accuracy -1 keeps the careless annotator (always wrong) past the accuracy rule
    built = build_annotated_project(recam_dev_bytes, settings={"min_accuracy": -1, "min_annotator_kappa": 0.2})
    run = quality_run_create(project=built.project)
    careless = AnnotatorDecision.objects.get(run=run, annotator=built.annotators["careless"])
    assert not careless.keep
    assert len(careless.reasons) == 1
    assert (
        careless.reasons[0].startswith("kappa ")
        and "against the others' majority on post_choice" in careless.reasons[0]
    )
    assert careless.reasons[0].endswith("is below the minimum of 0.2")
    assert careless.metrics["kappa_vs_majority"] < 0.2
    theirs = ResponseDecision.objects.filter(run=run, response__assignment__annotator=built.annotators["careless"])
    assert theirs.count() == 10 and not theirs.filter(keep=True).exists()
    assert all("annotator dropped: " + careless.reasons[0] in d.reasons for d in theirs)
    good = AnnotatorDecision.objects.get(run=run, annotator=built.annotators["good_a"])
    assert good.keep and good.metrics["kappa_vs_majority"] == pytest.approx(1.0)
    # off by default: the same annotations with the threshold unset keep the careless annotator
    again = quality_run_create(project=built.project, overrides={"min_annotator_kappa": None})
    assert AnnotatorDecision.objects.get(run=again, annotator=built.annotators["careless"]).keep


def test_items_carry_majority_and_dawid_skene_per_field(annotated):
    run = quality_run_create(project=annotated.project)
    columns = aggregate_columns(get_kind("recam").label_fields())
    assert "post_choice_ds_label" in columns and "rating_majority" not in columns
    for result in ItemResult.objects.filter(run=run).select_related("item"):
        d = result.diagnostics
        assert set(columns) <= set(d)
        label = result.item.payload["label"]
        assert d["post_choice_majority"] == label  # every kept annotator is right after reading
        assert d["post_choice_ds_label"] == label
        assert 0.5 <= d["post_choice_ds_posterior"] <= 1.0
    summary = run.report["aggregation"]["post_choice"]
    assert summary["n_items"] == 20 and summary["majority_ties"] == 0
    assert not np.isnan(summary["ds_mean_posterior"])


def test_run_stores_its_plots_as_svg(annotated):
    run = quality_run_create(project=annotated.project)
    names = list(RunPlot.objects.filter(run=run).values_list("name", flat=True))
    assert names[:3] == ["annotators_accuracy", "annotators_kappa_vs_majority", "fields"]
    assert {"pre_post_accuracy", "progress"} <= set(names)
    assert "time_on_task" not in names  # these answers were saved without page timings: no data, no plot
    assert all(p.svg.lstrip().startswith("<?xml") and "<svg" in p.svg for p in RunPlot.objects.filter(run=run))


def test_time_on_task_is_drawn_where_pages_were_timed(db):
    run = quality_run_create(project=bulk_responses(30))
    assert RunPlot.objects.filter(run=run, name="time_on_task").exists()
