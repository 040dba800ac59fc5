"""The CoSimLex page-1 engagement check: gibberish words, identical words, a pair typed again and
again, and the annotator-level share. No database."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from quality.stats import engagement
from tests.conftest import data_file


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("asdf", 'page-1 word "asdf" looks like a keyboard run'),
        ("qwerty", 'page-1 word "qwerty" looks like a keyboard run'),
        ("JKL", 'page-1 word "JKL" looks like a keyboard run'),
        ("fdsa", 'page-1 word "fdsa" looks like a keyboard run'),  # the same run, backwards
        ("qwertz", 'page-1 word "qwertz" looks like a keyboard run'),  # hr/sl keyboards
        ("asdasd", 'page-1 word "asdasd" looks like a keyboard run'),  # a run typed twice
        ("12345", 'page-1 word "12345" has no letters'),
        ("!!?", 'page-1 word "!!?" has no letters'),
        ("aaaa", 'page-1 word "aaaa" repeats one character'),
        ("x", 'page-1 word "x" is a single character'),
        ("ä", 'page-1 word "ä" is a single character'),
        ("hellooooo", 'page-1 word "hellooooo" has the same character 5 times in a row'),
        ("  ", "page-1 word 1 is empty"),
        (None, "page-1 word 1 is empty"),
    ],
)
def test_gibberish_words(word, reason):
    assert engagement.word_problems(word, 1) == [reason]


@pytest.mark.parametrize(
    "word",
    ["river", "Tree", "čaša", "žena", "Ljubljana", "hyväksyä", "Öljy", "kävelykatu", "水", "中文", "ok", "3D-film"],
)
def test_real_words_in_any_script_pass(word):
    assert engagement.word_problems(word, 2) == []


def release_words() -> set[str]:
    """Every word of the CoSimLex release (all four languages) and every inflected form in the samples."""
    words: set[str] = set()
    for lang in ("en", "hr", "sl", "fi"):
        with data_file("cosimlex", f"cosimlex_{lang}.scores.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                words.update((row["word1"], row["word2"]))
        with data_file("cosimlex", f"cosimlex_{lang}.sample.csv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                words.update(row[c] for c in ("word1_context1", "word2_context1", "word1_context2", "word2_context2"))
    return words


def test_no_word_of_the_release_is_called_gibberish():
    words = release_words()
    assert len(words) > 1000
    flagged = {w: engagement.word_problems(w, 1) for w in words if engagement.word_problems(w, 1)}
    assert flagged == {}


def test_identical_words_case_and_space_insensitive():
    assert engagement.pair_problems("Tree", " tree ") == ['page-1 words "Tree" and "tree" are the same word']
    assert engagement.pair_problems("tree", "forest") == []
    # each gibberish word is reported once, with its own reason
    assert engagement.pair_problems("asdf", "x") == [
        'page-1 word "asdf" looks like a keyboard run',
        'page-1 word "x" is a single character',
    ]


def responses(rows: list[tuple[int, str, str | None, str | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["response_id", "annotator_id", "inspired_word_1", "inspired_word_2"])


def test_a_pair_repeated_in_more_than_half_of_the_responses_is_flagged():
    frame = responses(
        [
            # A: "sea, ship" in 3 of 4 responses (order and case ignored) -> those 3 flagged
            (1, "A", "sea", "ship"),
            (2, "A", "Ship", "sea"),
            (3, "A", "sea", "SHIP"),
            (4, "A", "war", "peace"),
            # B: the same pair in exactly 2 of 4: not more than half -> not flagged
            (5, "B", "king", "crown"),
            (6, "B", "crown", "king"),
            (7, "B", "bread", "milk"),
            (8, "B", "dog", "cat"),
            # C: only 2 responses, both the same pair: too few to judge repeats
            (9, "C", "sun", "moon"),
            (10, "C", "sun", "moon"),
        ]
    )
    result = engagement.check_engagement(frame)
    r = result.responses
    assert r.index[r["flagged"]].tolist() == [1, 2, 3]
    assert r.loc[2, "reasons"] == ['page-1 pair "sea, ship" repeats in 3 of 4 responses']
    a = result.annotators
    assert a.loc["A", "flagged_share"] == 0.75 and a.loc["A", "n_flagged"] == 3 and a.loc["A", "n_responses"] == 4
    assert a["keep"].to_dict() == {"A": False, "B": True, "C": True}
    assert a.loc["A", "reasons"] == [
        "page-1 words fail the engagement check in 3 of 4 responses (75%), above the maximum of 50%"
    ]
    assert a.loc["B", "reasons"] == [] and a.loc["C", "reasons"] == []


def test_annotator_share_threshold_is_strict_and_a_parameter():
    frame = responses(
        [
            (1, "D", "asdf", "lake"),
            (2, "D", "x", "lake"),
            (3, "D", "forest", "lake"),
            (4, "D", "river", "boat"),
        ]
    )
    exactly_half = engagement.check_engagement(frame)
    assert exactly_half.annotators.loc["D", "flagged_share"] == 0.5
    assert exactly_half.annotators.loc["D", "keep"]  # "above the share" means more than half
    assert exactly_half.responses.loc[1, "reasons"] == ['page-1 word "asdf" looks like a keyboard run']
    strict = engagement.check_engagement(frame, max_flagged_share=0.25)
    assert not strict.annotators.loc["D", "keep"]
    # repeats are whole pairs: "lake" recurs, but each pair is 1 of 4 responses (25%), not more than 25%
    assert not engagement.check_engagement(frame, repeat_share=0.25).responses.loc[3, "flagged"]
