"""Dawid-Skene against numbers printed by Toloka's crowd-kit, and hand-checkable cases.

The reference numbers were produced in a throwaway venv (python -m venv /tmp/ck; pip install
crowd-kit==1.4.2 numpy==2.4.6 pandas==3.1.1 scipy==1.17.1) by
    DawidSkene(n_iter=10000, tol=1e-12).fit(df)   # df: task, worker, label from DS_CASE
    ds.labels_, ds.probas_.round(6), ds.priors_.round(6)
crowd-kit is not a dependency of the project (it pulls transformers and huggingface-hub).
crowd-kit's Dawid-Skene is plain maximum likelihood, ours with `alpha=0`; our default adds a
Dirichlet prior, tested below on a simulated crowd where plain EM over-fits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from quality.stats.dawid_skene import dawid_skene
from quality.stats.labels import clean_labels
from quality.stats.simulated_crowd import simulate_crowd

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


def test_without_its_prior_it_matches_crowd_kit():
    result = dawid_skene(case_labels(), alpha=0)
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


def test_unanimous_labels_are_certain_without_the_prior_and_nearly_so_with_it():
    rows = [(i, who, v) for i, v in enumerate("abcab") for who in ("x", "y", "z")]
    frame = clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"]))
    plain, smoothed = dawid_skene(frame, alpha=0), dawid_skene(frame)
    assert list(plain.labels["label"]) == list(smoothed.labels["label"]) == list("abcab")
    assert plain.labels["posterior"].to_numpy() == pytest.approx(np.ones(5))
    # Three annotators with five labels each cannot prove themselves perfect: the prior keeps
    # a little doubt, the same for every item.
    assert 0.8 < smoothed.labels["posterior"].min() < 1.0
    assert not smoothed.labels["tie"].any()


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


def test_with_its_prior_accuracy_does_not_fall_as_rounds_grow():
    # Two crowds of 2,000 items, 3 labels each from 100 annotators (~60 labels each, 16
    # confusion entries): plain EM loses over a point between round 10 and round 500, the
    # Dirichlet prior keeps what round 10 had (measured: 77.78 -> 76.15 % plain,
    # 79.30 -> 79.33 % with it).
    crowds = [simulate_crowd(seed=seed, n_items=2000, n_annotators=100) for seed in (1, 2)]

    def accuracy(**options) -> float:
        hits = [(dawid_skene(c.labels, **options).labels["label"] == c.truth).mean() for c in crowds]
        return float(np.mean(hits))

    plain_early, plain_late = accuracy(alpha=0, max_iter=10), accuracy(alpha=0, max_iter=500)
    early, late = accuracy(max_iter=10), accuracy(max_iter=500)
    assert plain_late < plain_early - 0.01  # the crowd shows the over-fit
    assert late >= early - 0.001
    assert late > plain_late + 0.02


def test_a_negative_prior_is_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        dawid_skene(case_labels(), alpha=-1)
