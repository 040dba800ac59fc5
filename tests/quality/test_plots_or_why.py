"""Plots that show something or say why not (issue 38): an alpha plot with no alpha and a progress
plot with no stretch of time become a sentence; the fields are named by their titles; the progress
axis spans the batch's own time."""

from __future__ import annotations

import re

import pandas as pd

from quality.report.figures import batch_progress, field_intervals, item_confidence


def test_no_alpha_anywhere_is_a_sentence_not_an_empty_frame():
    fields = {
        "blank_1": {"title": "blank 1", "alpha": {"value": None, "reason": "a single value was given"}},
        "blank_2": {"title": "blank 2", "alpha": {"value": None, "reason": "a single value was given"}},
    }
    name, title, svg, note = field_intervals(fields)
    assert (name, svg) == ("fields", "") and "per field" in title
    assert note == "Not drawn: no field has an alpha in this run (a single value was given)."


def test_the_alpha_plot_draws_only_fields_with_an_alpha():
    fields = {
        "a_skill": {"title": "A: skill", "alpha": {"value": 0.5, "low": 0.2, "high": 0.8}},
        "a_error": {"title": "A: error reason", "alpha": {"value": None, "reason": "no variation"}},
    }
    _, _, svg, note = field_intervals(fields)
    assert svg.startswith("<?xml") and note == ""
    # one field drawn: one tick on the field axis (text is drawn as paths: labels are not searchable)
    assert len(re.findall(r'<g id="ytick_\d+">', svg)) == 1


def test_item_confidence_is_titled_by_the_field():
    ((name, title, _, _),) = item_confidence({"blank_1": [0.5, 1.0]}, {"blank_1": "blank 1"})
    assert (name, title) == ("confidence_blank_1", "Item confidence: Blank 1")


def test_progress_at_one_moment_says_so_and_spans_the_batch_time_otherwise():
    moment = pd.Timestamp("2026-11-27 10:00", tz="UTC")
    one = pd.DataFrame({"started": [moment, moment], "ended": [moment, moment], "done": [True, True]})
    _, _, svg, note = batch_progress(one, 2)
    assert svg == "" and note.startswith("Not drawn: every assignment started and ended at one moment")
    later = moment + pd.Timedelta(minutes=30)
    two = pd.DataFrame({"started": [moment, moment], "ended": [later, pd.NaT], "done": [True, False]})
    _, _, svg, note = batch_progress(two, 3)
    assert note == "" and svg.startswith("<?xml")
