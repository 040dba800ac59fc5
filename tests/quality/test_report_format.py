"""Figures as a paper prints them, and a human label for every key (no database)."""

from __future__ import annotations

import math

import pytest

from annotation.kinds import all_kinds, get_kind
from quality.report.format import figure, format_figure, style_of


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (0.3333333333333333, "share", "33.3 %"),
        (0.3333333333333333, "coefficient", "0.333"),
        (0.3333333333333333, "number", "0.333"),
        (3.0, "count", "3"),
        (7, "count", "7"),
        (0.0004, "p_value", "< 0.001"),
        (0.0421, "p_value", "0.042"),
        (62.4, "seconds", "62.4"),
        (None, "share", "—"),
        (math.nan, "coefficient", "—"),
        (True, "number", "yes"),
        ("Kong et al.", "text", "Kong et al."),
    ],
)
def test_values_are_rounded_to_what_they_mean(value, unit, shown):
    assert format_figure(value, unit) == shown


def test_scde_figures_carry_the_papers_names():
    styles = get_kind("scde").figure_styles()
    assert figure("ba", 0.871, styles) == ("BA: blank accuracy", "87.1 %")
    assert figure("pa", 0.5625, styles) == ("PA: passage accuracy", "56.2 %")
    assert figure("de", 0.375, styles) == ("DE: distractor error", "0.375")
    assert figure("min_ba", 0.5, styles) == ("Rule: minimum BA of a worker", "50.0 %")


def test_unknown_keys_still_get_a_label_and_a_unit():
    assert style_of("share_of_something", {}).unit == "share"
    assert style_of("n_things", {}).unit == "count"
    assert style_of("mean_pairwise_spearman_x", {}).unit == "coefficient"
    assert style_of("odd_key", {}).label == "Odd key"


def test_every_kind_labels_its_diagnostic_columns():
    """No raw key (`min_ba`, `second_answer_share`) reaches the report's column headers."""
    for kind in all_kinds():
        for column in kind.item_diagnostic_columns():
            label = style_of(column, kind.figure_styles()).label
            assert "_" not in label and label[0].isupper(), (kind.slug, column, label)
