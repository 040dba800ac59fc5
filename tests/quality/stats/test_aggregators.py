"""Dawid-Skene, one-coin Dawid-Skene, MACE and GLAD against Toloka's crowd-kit 1.4.2 on simulated
crowds, and hand-checkable properties of each.

crowd-kit is not installed here (its install adds transformers, huggingface-hub, tokenizers and
pyarrow; pyarrow alone changes how pandas 3 stores the project's strings). Its labels on six
simulated crowds (seeds 101-106: 600 items, 4 classes, 3 labels an item from 30 annotators:
12 good at p = 0.85, 10 mediocre at 0.6, 6 spammers, 2 biased) were printed in a throwaway venv
by bench/crowdkit_reference.py (its docstring has the exact commands) into
crowdkit_reference.json, with crowd-kit's default settings. Issue 28's targets: at least
crowd-kit's accuracy against the truth (within 1 point, mean over seeds) and the same label on at
least 95 % of items. Our Dawid-Skene (with its Dirichlet prior) and GLAD (with its M-step run to
convergence) recover more true labels than crowd-kit's and so differ from it on more items; for
them the test is that, where the two disagree, ours is the one that is right more often.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quality.stats.dawid_skene import dawid_skene
from quality.stats.glad import glad
from quality.stats.labels import clean_labels
from quality.stats.mace import mace
from quality.stats.one_coin import one_coin_dawid_skene
from quality.stats.simulated_crowd import SimulatedCrowd, simulate_crowd

REFERENCE = json.loads((Path(__file__).parent / "crowdkit_reference.json").read_text())
SEEDS = sorted(int(seed) for seed in REFERENCE["seeds"])

OURS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "dawid_skene": lambda frame: dawid_skene(frame).labels,
    "dawid_skene_plain": lambda frame: dawid_skene(frame, alpha=0).labels,
    "one_coin_dawid_skene": lambda frame: one_coin_dawid_skene(frame).labels,
    "mace": lambda frame: mace(frame).labels,
    "glad": lambda frame: glad(frame).labels,
}
THEIRS = {"dawid_skene_plain": "dawid_skene"}


@cache
def crowd(seed: int) -> SimulatedCrowd:
    return simulate_crowd(seed=seed)


@cache
def compared(name: str) -> pd.DataFrame:
    """Per seed: our accuracy, crowd-kit's, the share of items with the same label, and on the
    items where the labels differ, how many times ours is right and how many times theirs is."""
    rows = []
    for seed in SEEDS:
        truth = crowd(seed).truth.to_numpy()
        ours = OURS[name](crowd(seed).labels)["label"].reindex(crowd(seed).truth.index).to_numpy()
        theirs = np.array(list(REFERENCE["seeds"][str(seed)][THEIRS.get(name, name)]["labels"]), dtype=object)
        differ = ours != theirs
        rows.append(
            {
                "ours": np.mean(ours == truth),
                "theirs": np.mean(theirs == truth),
                "same": np.mean(~differ),
                "ours_right": int((differ & (ours == truth)).sum()),
                "theirs_right": int((differ & (theirs == truth)).sum()),
            }
        )
    return pd.DataFrame(rows, index=SEEDS)


def test_the_reference_describes_the_crowds_the_simulator_draws():
    assert REFERENCE["crowd_kit"] == "1.4.2" and len(SEEDS) == 6
    for seed in SEEDS:
        assert crowd(seed).fingerprint() == REFERENCE["seeds"][str(seed)]["fingerprint"], seed
        truth = crowd(seed).truth.to_numpy()
        theirs = np.array(list(REFERENCE["seeds"][str(seed)]["mace"]["labels"]), dtype=object)
        assert np.mean(theirs == truth) == pytest.approx(REFERENCE["seeds"][str(seed)]["mace"]["accuracy"], abs=1e-6)


@pytest.mark.parametrize("name", ["one_coin_dawid_skene", "mace", "dawid_skene_plain"])
def test_recovers_as_many_labels_as_crowd_kit_and_mostly_the_same(name):
    figures = compared(name)
    assert figures["ours"].mean() >= figures["theirs"].mean() - 0.01
    assert figures["same"].mean() >= 0.95


@pytest.mark.parametrize("name", ["dawid_skene", "glad"])
def test_recovers_more_labels_than_crowd_kit_where_they_differ(name):
    # Measured on seeds 101-106 (mean): Dawid-Skene 78.25 % against 74.94 % (87.4 % the same label),
    # GLAD 81.17 % against 78.50 % (92.2 %). bench/README.md, "Aggregators", has every figure.
    figures = compared(name)
    assert figures["ours"].mean() >= figures["theirs"].mean() + 0.005
    assert figures["ours_right"].sum() > 1.5 * figures["theirs_right"].sum()
    assert figures["same"].mean() >= 0.85


def frame(rows: list[tuple]) -> pd.DataFrame:
    return clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"]))


@pytest.mark.parametrize("name", ["dawid_skene", "one_coin_dawid_skene", "mace", "glad"])
def test_unanimous_items_get_their_label_and_posteriors_are_distributions(name):
    labels = frame(
        [(i, who, v) for i, v in enumerate("abcabba") for who in ("x", "y", "z")] + [(7, "x", "a"), (7, "y", "b")]
    )
    chosen = OURS[name](labels)
    assert list(chosen["label"][:7]) == list("abcabba")
    assert (chosen["posterior"][:7] > 0.8).all()
    assert chosen["posterior"].between(0, 1).all()
    assert list(chosen.columns) == ["label", "posterior", "tie"]


@pytest.mark.parametrize("aggregate", [one_coin_dawid_skene, mace, glad])
def test_deterministic_and_refuses_no_labels(aggregate):
    labels = crowd(SEEDS[0]).labels.head(300)
    first, again = aggregate(labels), aggregate(labels)
    pd.testing.assert_frame_equal(first.posteriors, again.posteriors)
    assert first.posteriors.sum(axis=1).to_numpy() == pytest.approx(np.ones(len(first.posteriors)))
    with pytest.raises(ValueError, match="at least one label"):
        aggregate(frame([]))


def test_a_symmetric_tie_is_flagged():
    labels = frame([(0, "x", "a"), (0, "y", "b"), (1, "x", "a"), (1, "y", "a"), (2, "x", "b"), (2, "y", "b")])
    for aggregate in (one_coin_dawid_skene, mace, glad):
        result = aggregate(labels)
        assert bool(result.labels.loc[0, "tie"]), aggregate.__name__
        assert result.labels.loc[0, "posterior"] == pytest.approx(0.5)


def test_competences_rank_the_kinds_of_annotator():
    # A larger crowd so each annotator has ~200 labels: good > mediocre > spammer on average.
    big = simulate_crowd(seed=7, n_items=2000)
    kind = big.annotators["kind"]
    estimates = {
        "one-coin accuracy": one_coin_dawid_skene(big.labels).accuracy,
        "MACE competence": mace(big.labels).competence,
        "GLAD expertise": glad(big.labels).expertise,
    }
    for name, estimate in estimates.items():
        means = estimate.groupby(kind).mean()
        assert means["good"] > means["mediocre"] > means["spammer"], name
    accuracy = estimates["one-coin accuracy"].groupby(kind).mean()
    assert accuracy["good"] == pytest.approx(0.85, abs=0.05)
    assert accuracy["mediocre"] == pytest.approx(0.60, abs=0.05)
    competence = estimates["MACE competence"].groupby(kind).mean()
    assert competence["spammer"] < 0.2 < 0.7 < competence["good"]


def test_mace_learns_a_spammers_strategy():
    big = simulate_crowd(seed=8, n_items=2000)
    fitted = mace(big.labels)
    biased = big.annotators[big.annotators["kind"] == "biased"]
    for who, favourite in biased["favourite"].items():
        assert fitted.strategy.loc[who].idxmax() == favourite
    assert fitted.strategy.sum(axis=1).to_numpy() == pytest.approx(np.ones(len(fitted.strategy)))


def test_glad_finds_hard_items_and_takes_a_class_prior():
    # Item 0: two experts disagree with a third; items 1-5: all three agree.
    rows = [(0, "x", "a"), (0, "y", "a"), (0, "z", "b")]
    rows += [(i, who, "ab"[i % 2]) for i in range(1, 6) for who in ("x", "y", "z")]
    fitted = glad(frame(rows))
    assert fitted.inverse_difficulty[0] < fitted.inverse_difficulty[1:].min()
    assert fitted.labels.loc[0, "label"] == "a"
    tilted = glad(frame(rows), class_prior=(0.01, 0.99))
    assert tilted.posteriors.loc[0, "b"] > fitted.posteriors.loc[0, "b"]
    with pytest.raises(ValueError, match="class_prior"):
        glad(frame(rows), class_prior=(1.0,))
