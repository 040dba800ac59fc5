"""Dawid-Skene against numbers printed by Toloka's crowd-kit, and hand-checkable cases.

The reference numbers were produced in a throwaway venv (python -m venv /tmp/ck; pip install
crowd-kit==1.4.2 numpy==2.4.6 pandas==3.1.1 scipy==1.17.1) by
    DawidSkene(n_iter=10000, tol=1e-12).fit(df)   # df: task, worker, label from DS_CASE
    ds.labels_, ds.probas_.round(6), ds.priors_.round(6)
crowd-kit is not a dependency of the project (it pulls transformers and huggingface-hub)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from quality.stats.dawid_skene import dawid_skene
from quality.stats.labels import clean_labels

# 40 items, 5 annotators (3 per item, '.' = not labelled), labels a/b/c; drawn with
# numpy.random.default_rng(7) from true shares a .5 b .3 c .2 and accuracies .85 .7 .6 .5 .4.
DS_CASE = {
    "w1": ".b..ac.cbaaa..b....caaa.ab..c.....b..ac.",
    "w2": "b.aabcbc.b..a..b.bbb.a..abaabbaaa..ca.ca",
    "w3": ".cb..b..b.aa.ab.c.cca.cc.b.c..caaaba.a.a",
    "w4": "caaa..b..ac.ab.acba.b.ca..abab..cab.c.bc",
    "w5": "a..aa.aab..ccccaba...a.aa.c..cbb.a.aab..",
}
CROWDKIT_LABELS = "abbaacccbaaababcacccaaacabbacbaaaabcaaca"
CROWDKIT_PRIORS = {"a": 0.521516, "b": 0.228156, "c": 0.250328}
CROWDKIT_POSTERIORS = {  # item: P(a), P(b), P(c); every other item has one label at 1.000000
    6: (0.299084, 0.0, 0.700916),
    12: (0.20335, 0.79665, 0.0),
    15: (0.222509, 0.0, 0.777491),
    17: (0.299084, 0.0, 0.700916),
    18: (0.197332, 0.219438, 0.58323),
    23: (0.233239, 0.0, 0.766761),
    26: (0.20335, 0.79665, 0.0),
    27: (0.676125, 0.323875, 0.0),
    29: (0.271807, 0.728193, 0.0),
    30: (0.738546, 0.261454, 0.0),
    33: (0.516202, 0.0, 0.483798),
}


def case_labels() -> pd.DataFrame:
    rows = [(i, who, v) for who, row in DS_CASE.items() for i, v in enumerate(row) if v != "."]
    return clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"]))


def test_matches_crowd_kit():
    result = dawid_skene(case_labels())
    assert result.converged
    assert "".join(result.labels["label"]) == CROWDKIT_LABELS
    assert result.priors.to_dict() == pytest.approx(CROWDKIT_PRIORS, abs=2e-6)
    for item, row in result.posteriors.iterrows():
        expected = CROWDKIT_POSTERIORS.get(item)
        if expected is None:
            expected = tuple(float(label == CROWDKIT_LABELS[item]) for label in "abc")
        assert tuple(row) == pytest.approx(expected, abs=2e-6)
    chosen = result.labels["posterior"]
    assert chosen[33] == pytest.approx(0.516202, abs=2e-6)


def test_is_deterministic_and_its_parameters_are_distributions():
    first, again = dawid_skene(case_labels()), dawid_skene(case_labels())
    pd.testing.assert_frame_equal(first.posteriors, again.posteriors)
    assert first.posteriors.sum(axis=1).to_numpy() == pytest.approx(np.ones(40))
    assert first.priors.sum() == pytest.approx(1.0)
    per_true = first.errors.groupby(level="annotator").sum()
    assert per_true.to_numpy() == pytest.approx(np.ones((5, 3)))


def test_unanimous_labels_are_certain():
    rows = [(i, who, v) for i, v in enumerate("abcab") for who in ("x", "y", "z")]
    result = dawid_skene(clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"])))
    assert list(result.labels["label"]) == list("abcab")
    assert result.labels["posterior"].to_numpy() == pytest.approx(np.ones(5))
    assert not result.labels["tie"].any()


def test_a_symmetric_tie_is_flagged_not_hidden():
    # Two annotators who each always disagree on one item, agree on the others: item 0 is a tie.
    rows = [(0, "x", "a"), (0, "y", "b"), (1, "x", "a"), (1, "y", "a"), (2, "x", "b"), (2, "y", "b")]
    result = dawid_skene(clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"])))
    assert bool(result.labels.loc[0, "tie"])
    assert result.labels.loc[0, "posterior"] == pytest.approx(0.5)
    assert list(result.labels.loc[[1, 2], "label"]) == ["a", "b"]


def test_no_labels_is_refused():
    with pytest.raises(ValueError, match="at least one label"):
        dawid_skene(clean_labels(pd.DataFrame(columns=["item", "annotator", "value"])))
