"""Majority vote with ties reported, and agreement of each annotator with the others' majority
(Cohen's kappa checked against scikit-learn). No database."""

from __future__ import annotations

import math

import pytest
from sklearn.metrics import cohen_kappa_score

from quality.stats.aggregation import agreement_with_majority, majority_vote
from quality.stats.labels import clean_labels

from .examples import from_columns

TABLE = {
    "A": ["x", "x", "y", "z", "x", "y"],
    "B": ["x", "y", "y", "z", "y", None],
    "C": ["x", "y", "x", None, "z", "y"],
    "D": ["y", "x", "y", None, None, "y"],
}


def test_majority_vote_reports_ties_with_the_tied_labels():
    result = majority_vote(clean_labels(from_columns(TABLE)))
    assert list(result["label"]) == ["x", None, "y", "z", None, "y"]
    assert list(result["tie"]) == [False, True, False, False, True, False]
    assert result.loc[1, "tied_labels"] == ("x", "y")
    assert result.loc[4, "tied_labels"] == ("x", "y", "z")
    assert result.loc[0, "tied_labels"] == ()
    assert list(result["votes"]) == [3, 2, 3, 2, 1, 3]
    assert list(result["n_labels"]) == [4, 4, 4, 2, 3, 3]
    assert result.loc[0, "share"] == 0.75


def test_agreement_with_the_others_majority():
    # A against the others' majority: item 0 B,C,D -> x (agrees); 1 y,y,x -> y (A x: no);
    # 2 y,x,y -> y (yes); 3 z (yes); 4 y,z tie (left out); 5 y,y (yes). Majority seq: x y y z y.
    result = agreement_with_majority(clean_labels(from_columns(TABLE)))
    a = result.loc["A"]
    assert (a.n_labels, a.n_items, a.n_tied) == (6, 5, 1)
    assert a.agreement == pytest.approx(4 / 5)
    assert a.kappa == pytest.approx(cohen_kappa_score(["x", "x", "y", "z", "y"], ["x", "y", "y", "z", "y"]))
    # D: 0 others x,x,x -> x (D y); 1 others x,y,y -> y (D x); 2 y,y,x -> y (D y); 5 y,y -> y (D y).
    d = result.loc["D"]
    assert (d.n_items, d.n_tied) == (4, 0)
    assert d.kappa == pytest.approx(cohen_kappa_score(["y", "x", "y", "y"], ["x", "y", "y", "y"]))


def test_an_annotator_alone_has_no_majority_to_agree_with():
    result = agreement_with_majority(clean_labels(from_columns({"A": ["x", "y"]})))
    assert result.loc["A", "n_items"] == 0
    assert math.isnan(result.loc["A", "kappa"])


def test_perfect_agreement_gives_kappa_one_for_everyone():
    table = {who: ["x", "y", "z", "x"] for who in "ABC"}
    result = agreement_with_majority(clean_labels(from_columns(table)))
    assert list(result["kappa"]) == [1.0, 1.0, 1.0]
    assert list(majority_vote(clean_labels(from_columns(table)))["label"]) == ["x", "y", "z", "x"]
