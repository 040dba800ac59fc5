"""The anchoring figures of `quality.stats.suggestions`, against sklearn's Cohen's κ and the
krippendorff package's α computed directly on the same labels."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from quality.stats.suggestions import (
    INTERVAL_KAPPA,
    NO_PAIRS,
    agreement_with_model,
    among_annotators,
    suggestion_figures,
)

#: six items, three annotators; items 0-2 were labeled with the model's suggestion shown
ROWS = [
    # item, annotator, value, shown, kept, model
    (0, "a", "pos", True, True, "pos"),
    (0, "b", "pos", True, True, "pos"),
    (0, "c", "neg", True, False, "pos"),
    (1, "a", "neg", True, True, "neg"),
    (1, "b", "neg", True, True, "neg"),
    (1, "c", "neg", True, True, "neg"),
    (2, "a", "neu", True, False, "pos"),
    (2, "b", "pos", True, True, "pos"),
    (3, "a", "pos", False, None, "neg"),
    (3, "b", "neg", False, None, "neg"),
    (3, "c", "neu", False, None, "neg"),
    (4, "a", "neu", False, None, "neu"),
    (4, "b", "pos", False, None, "neu"),
    (5, "a", "neg", False, None, None),
    (5, "c", "neg", False, None, None),
]
FRAME = pd.DataFrame(ROWS, columns=["item", "annotator", "value", "shown", "kept", "model"])


def _alpha_reference(rows: pd.DataFrame) -> float:
    """The krippendorff package's nominal α on the annotators × items matrix of `rows`."""
    codes = {v: i for i, v in enumerate(sorted(rows["value"].unique()))}
    matrix = rows.assign(code=rows["value"].map(codes)).pivot(index="annotator", columns="item", values="code")
    return krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float), level_of_measurement="nominal")


def test_kept_share_counts_the_annotations_shown_a_suggestion():
    figures = suggestion_figures(FRAME, level="nominal")
    assert (figures.n_shown, figures.n_kept) == (8, 6)
    assert figures.kept_share == pytest.approx(6 / 8)


def test_agreement_with_the_model_pools_every_annotator_as_sklearn_computes_kappa():
    figures = suggestion_figures(FRAME, level="nominal")
    shown, other = FRAME[FRAME["shown"]], FRAME[~FRAME["shown"] & FRAME["model"].notna()]
    assert figures.model_shown.n == 8
    assert figures.model_shown.equal == pytest.approx(6 / 8)
    assert figures.model_shown.kappa == pytest.approx(cohen_kappa_score(shown["value"], shown["model"]))
    assert figures.model_not_shown.n == 5  # item 5 has no model label
    assert figures.model_not_shown.equal == pytest.approx(2 / 5)
    assert figures.model_not_shown.kappa == pytest.approx(cohen_kappa_score(other["value"], other["model"]))


def test_agreement_among_annotators_is_alpha_on_each_group_alone():
    figures = suggestion_figures(FRAME, level="nominal")
    assert figures.among_shown.value == pytest.approx(_alpha_reference(FRAME[FRAME["shown"]]))
    assert figures.among_not_shown.value == pytest.approx(_alpha_reference(FRAME[~FRAME["shown"]]))
    assert figures.among_shown.value > figures.among_not_shown.value  # the anchoring this section shows


def test_sets_are_compared_as_sets():
    found = agreement_with_model([["2-5 x", "0-1 y"], ["0-1 y"]], [["0-1 y", "2-5 x"], ["0-1 y", "2-5 x"]], level="set")
    assert (found.n, found.equal) == (2, 0.5)
    assert found.kappa == pytest.approx(
        cohen_kappa_score(["a", "b"], ["a", "a"])
    )  # two distinct sets on the humans' side, one on the model's


def test_a_set_field_agreement_among_annotators_is_masi_alpha():
    labels = pd.DataFrame(
        [(0, "a", ["x"]), (0, "b", ["x"]), (1, "a", ["x", "y"]), (1, "b", ["y"])],
        columns=["item", "annotator", "value"],
    )
    assert among_annotators(labels, level="set").level == "set"


def test_an_interval_field_has_no_kappa_and_says_why():
    found = agreement_with_model([70, 50.5], [70, 60], level="interval")
    assert found.equal == 0.5 and math.isnan(found.kappa) and found.reason == INTERVAL_KAPPA


def test_no_suggestion_shown_gives_reasons_not_figures():
    figures = suggestion_figures(FRAME.assign(shown=False, kept=None), level="nominal")
    assert figures.n_shown == 0 and math.isnan(figures.kept_share)
    assert figures.model_shown.reason == NO_PAIRS
    assert figures.among_shown.reason == "no item has two labels"


def test_an_ordinal_field_is_measured_with_its_order():
    labels = pd.DataFrame(
        [(0, "a", "easy"), (0, "b", "medium"), (1, "a", "hard"), (1, "b", "hard"), (2, "a", "easy"), (2, "b", "easy")],
        columns=["item", "annotator", "value"],
    )
    order = ("easy", "medium", "hard")
    matrix = np.array([[0, 2, 0], [1, 2, 0]], dtype=float)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0, 1, 2])
    assert among_annotators(labels, level="ordinal", order=order).value == pytest.approx(expected)
