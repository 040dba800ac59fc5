"""The simulated crowd draws what it says: the kinds of annotator, their accuracy, their biases."""

from __future__ import annotations

import numpy as np
import pytest

from quality.stats.labels import clean_labels
from quality.stats.simulated_crowd import CrowdMix, simulate_crowd


def test_same_seed_same_crowd_other_seed_other_crowd():
    first, again, other = simulate_crowd(seed=5), simulate_crowd(seed=5), simulate_crowd(seed=6)
    assert first.fingerprint() == again.fingerprint() != other.fingerprint()
    assert first.labels.equals(again.labels)


def test_shape_and_label_frame():
    crowd = simulate_crowd(seed=1, n_items=200, n_classes=3, n_annotators=12, labels_per_item=4)
    assert len(crowd.labels) == 800
    assert crowd.labels.groupby("item")["annotator"].nunique().eq(4).all()
    assert clean_labels(crowd.labels).equals(crowd.labels)  # already a clean label frame
    assert set(crowd.labels["value"]) <= {"a", "b", "c"} and set(crowd.truth) <= {"a", "b", "c"}
    assert list(crowd.truth.index) == list(range(200))


def test_mix_counts_round_by_largest_remainder():
    assert CrowdMix().counts(30) == [12, 10, 6, 2]
    assert sum(CrowdMix().counts(7)) == 7
    kinds = simulate_crowd(seed=1).annotators["kind"].value_counts().to_dict()
    assert kinds == {"good": 12, "mediocre": 10, "spammer": 6, "biased": 2}


def test_each_kind_labels_as_specified():
    mix = CrowdMix(good=1, mediocre=1, spammer=1, biased=1, good_accuracy=0.9, mediocre_accuracy=0.55, bias=0.8)
    crowd = simulate_crowd(seed=3, n_items=6000, n_annotators=8, labels_per_item=4, mix=mix)
    rows = crowd.labels.join(crowd.annotators, on="annotator").join(crowd.truth, on="item")
    right = rows["value"] == rows["truth"]
    by_kind = right.groupby(rows["kind"]).mean()
    assert by_kind["good"] == pytest.approx(0.9, abs=0.02)
    assert by_kind["mediocre"] == pytest.approx(0.55, abs=0.02)
    assert by_kind["spammer"] == pytest.approx(0.25, abs=0.02)
    biased = rows[rows["kind"] == "biased"]
    favourite = (biased["value"] == biased["favourite"]).mean()
    assert favourite == pytest.approx(0.8 + 0.2 * 0.25, abs=0.02)  # or the truth, a quarter of it the favourite
    wrong = rows[rows["kind"].isin(["good", "mediocre"]) & ~right]  # ~3,300 labels
    offset = (wrong["value"].map(ord) - wrong["truth"].map(ord)) % 4  # which of the other classes
    shares = offset.value_counts(normalize=True).sort_index()
    assert shares.to_numpy() == pytest.approx(np.full(3, 1 / 3), abs=0.03)  # uniform over them


def test_class_prior_is_followed():
    crowd = simulate_crowd(seed=2, n_items=5000, n_classes=2, class_prior=(0.8, 0.2))
    assert (crowd.truth == "a").mean() == pytest.approx(0.8, abs=0.02)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_classes": 1}, "n_classes"),
        ({"labels_per_item": 31}, "labels_per_item"),
        ({"class_prior": (0.5, 0.5)}, "class_prior"),
        ({"mix": CrowdMix(good=0, mediocre=0, spammer=0, biased=0)}, "shares"),
    ],
)
def test_bad_arguments_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        simulate_crowd(seed=1, **options)
