"""The headline's rules read as sentences: no '#' placeholders, a shared number as it is and a
differing one as its range (no database)."""

from __future__ import annotations

import pandas as pd

from quality.headline import headline


def frame(reasons: list[list[str]]) -> pd.DataFrame:
    return pd.DataFrame({"keep": [not r for r in reasons], "reasons": reasons})


def test_a_rule_shows_shared_numbers_and_the_range_of_the_others():
    annotators = frame(
        [
            ["blank accuracy 35.6% on 3 passages with gold is below the minimum of 50%"],
            ["blank accuracy 12.5% on 8 passages with gold is below the minimum of 50%"],
            ["median time per passage 4 s is below the minimum of 62.4 s"],
            [],
        ]
    )
    responses = frame([["annotator dropped: x"], ["annotator dropped: y"], []])
    figures = headline(responses, annotators)
    assert figures["annotators_dropped_by_reason"] == {
        "blank accuracy 12.5–35.6% on 3–8 passages with gold is below the minimum of 50%": 2,
        "median time per passage 4 s is below the minimum of 62.4 s": 1,
    }
    assert figures["annotations_dropped_by_reason"] == {"annotator dropped": 2}
    assert not any("#" in rule for rule in figures["annotators_dropped_by_reason"])
