"""Span field results: majority spans by a character vote (worked by hand), span F1 exact (by hand)
and by character overlap (against sklearn's micro F1 over per-character labels). No database."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from sklearn.metrics import f1_score

from quality.stats.spans import majority_spans, pair_f1, span_results

TEXT = "The cat sat on the warm mat today."


def span(start: int, end: int, label: str | None = "minor") -> dict:
    return {"start": start, "end": end, "text": TEXT[start:end], "label": label}


def test_characters_a_majority_marked_become_spans_with_the_majority_label():
    a = [span(4, 7, "major"), span(19, 27)]  # "cat", "warm mat"
    b = [span(4, 11, "major"), span(24, 27)]  # "cat sat", "mat"
    c = [span(5, 7, "minor")]  # "at"
    # position 4: a, b (major) -> 2 of 3; 5-6: a, b major, c minor -> major; 7-10: b only; 19-23: a only;
    # 24-26: a minor, b minor -> minor
    assert majority_spans([a, b, c]) == [
        {"start": 4, "end": 7, "text": "cat", "label": "major"},
        {"start": 24, "end": 27, "text": "mat", "label": "minor"},
    ]


def test_a_tie_between_labels_has_no_label_and_splits_the_run():
    a = [span(4, 11, "major")]  # "cat sat"
    b = [span(4, 7, "minor"), span(7, 11, "major")]
    # 4-6: a major, b minor (a tie: no label); 7-10: both major
    assert majority_spans([a, b, []]) == [
        {"start": 4, "end": 7, "text": "cat", "label": None},
        {"start": 7, "end": 11, "text": " sat", "label": "major"},
    ]
    assert majority_spans([a, b, [], []]) == []  # two of four is not more than half


def test_an_empty_answer_is_a_vote_for_nothing():
    a, b = [span(4, 7, "major")], [span(4, 7, "major")]
    assert majority_spans([a, b, []]) == [{"start": 4, "end": 7, "text": "cat", "label": "major"}]
    assert majority_spans([a, [], []]) == []


def test_exact_f1_by_hand():
    a = [[span(4, 7), span(19, 27)], [span(0, 3, "major")]]
    b = [[span(4, 7), span(24, 27)], []]
    # item 1: 1 match of 2 + 2; item 2: 0 of 1 + 0 -> 2*1 / 5
    exact, _ = pair_f1(a, b)
    assert exact == pytest.approx(2 / 5)


def per_character(spans: list[dict]) -> list[str]:
    labels = ["O"] * len(TEXT)
    for s in spans:
        for p in range(s["start"], s["end"]):
            labels[p] = s["label"]
    return labels


def test_overlap_f1_is_sklearns_micro_f1_over_characters():
    a = [span(4, 11, "major"), span(19, 27), span(28, 33, "major")]
    b = [span(4, 7, "major"), span(8, 11, "minor"), span(15, 23), span(28, 33, "minor")]
    _, overlap = pair_f1([a], [b])
    reference = f1_score(per_character(a), per_character(b), labels=["minor", "major"], average="micro")
    assert overlap == pytest.approx(reference)


def test_span_results_per_item_pairs_and_labels():
    frame = pd.DataFrame(
        [
            (1, "a", [span(4, 7, "major")]),
            (1, "b", [span(4, 7, "major"), span(24, 27)]),
            (1, "c", None),  # did not answer: no vote
            (2, "a", []),
            (2, "c", []),
        ],
        columns=["item", "annotator", "value"],
    )
    result = span_results(frame)
    assert result.items.loc[1, "spans"] == [
        {"start": 4, "end": 7, "text": "cat", "label": "major"},
    ]
    assert result.items.loc[1, "label_counts"] == {"major": 2, "minor": 1}
    assert result.items.loc[2, "spans"] == [] and result.items.loc[1, "n_annotators"] == 2
    pairs = result.pairs.set_index(["annotator_a", "annotator_b"])
    assert pairs.loc[("a", "b"), "exact_f1"] == pytest.approx(2 / 3)
    assert math.isnan(pairs.loc[("a", "c"), "exact_f1"])  # nothing marked by either: no F1
    assert result.exact_f1 == pytest.approx(2 / 3)
    assert result.labels == {"major": {"marked": 2, "agreed": 1}, "minor": {"marked": 1, "agreed": 0}}


def test_a_bad_span_names_item_and_annotator():
    frame = pd.DataFrame([(3, "z", [{"start": 5, "end": 2}])], columns=["item", "annotator", "value"])
    with pytest.raises(ValueError, match="item 3 by annotator 'z'"):
        span_results(frame)
