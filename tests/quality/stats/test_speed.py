"""The too-fast rule's arithmetic, worked by hand: thresholds from an absolute floor and from a
share of the median (the item's own once three answers are timed, else all answers'), unknown
times and unfinished answers never flagged, and each annotator's share."""

import math

import pandas as pd

from quality.stats.speed import flag_too_fast, too_fast_shares

ROWS = [
    # item 1: four timed answers, median 20 -> its own median is used
    (1, "a", 1, True, 4.0),
    (2, "b", 1, True, 18.0),
    (3, "c", 1, True, 22.0),
    (4, "d", 1, True, 30.0),
    # item 2: two timed answers: the median of every timed completed answer (20.0) is used
    (5, "a", 2, True, 3.0),
    (6, "b", 2, True, 40.0),
    (7, "c", 2, True, None),  # time unknown: never flagged
    (8, "d", 2, False, 1.0),  # not finished: never flagged
]
FRAME = pd.DataFrame(ROWS, columns=["response_id", "annotator_id", "item_id", "completed", "seconds"])


def test_a_share_of_the_median_uses_the_items_median_once_three_are_timed():
    flags = flag_too_fast(FRAME, median_share=0.5)
    # all completed timed answers: 4, 18, 22, 30, 3, 40 -> median 20
    assert flags["threshold"].to_dict() == {1: 10.0, 2: 10.0, 3: 10.0, 4: 10.0, 5: 10.0, 6: 10.0, 7: 10.0, 8: 10.0}
    assert flags.index[flags["too_fast"]].tolist() == [1, 5]


def test_the_item_median_differs_from_the_overall_one_and_the_floor_is_the_higher():
    frame = FRAME.copy()
    frame.loc[frame["item_id"] == 1, "seconds"] = [60.0, 70.0, 80.0, 90.0]  # item 1's median: 75
    flags = flag_too_fast(frame, median_share=0.5, min_seconds=12)
    assert flags.at[1, "threshold"] == 37.5  # 0.5 x item 1's own median
    # item 2 uses every timed answer's median: 60, 70, 80, 90, 3, 40 -> 65; half is 32.5 > the floor 12
    assert flags.at[5, "threshold"] == 32.5
    assert flags.index[flags["too_fast"]].tolist() == [5]  # 60 s is not below 37.5; 3 s and 40 s vs 32.5
    floor_only = flag_too_fast(FRAME, min_seconds=5)
    assert floor_only.index[floor_only["too_fast"]].tolist() == [1, 5]


def test_no_rule_flags_nothing_and_shares_count_timed_finished_answers():
    none = flag_too_fast(FRAME)
    assert not none["too_fast"].any() and none["threshold"].isna().all()
    shares = too_fast_shares(FRAME, flag_too_fast(FRAME, min_seconds=5))
    assert shares.loc["a"].tolist()[:2] == [2, 2] and shares.at["a", "share"] == 1.0
    assert shares.at["c", "timed"] == 1 and shares.at["c", "share"] == 0.0
    assert shares.at["d", "timed"] == 1  # the unfinished answer is not counted
    assert not math.isnan(shares.at["b", "share"]) and shares.at["b", "share"] == 0.0


def test_an_untimed_suspect_is_flagged_by_any_rule_on_and_left_out_of_the_median():
    """Answer 7 saved without its page's timing note (`untimed_saves: suspect`), with a partial
    time of 1 s from another page: judged too fast, and its 1 s never lowers a median."""
    frame = FRAME.assign(
        untimed=FRAME["response_id"] == 7, seconds=FRAME["seconds"].where(FRAME["response_id"] != 7, 1.0)
    )
    assert flag_too_fast(frame).loc[7, "too_fast"] == False  # noqa: E712 - no rule on: nothing is judged
    floor = flag_too_fast(frame, min_seconds=2.0)
    assert floor.index[floor["too_fast"]].tolist() == [7] and math.isnan(floor.loc[7, "seconds"])
    median = flag_too_fast(frame, median_share=0.5)
    assert median.loc[7, "threshold"] == 10.0 and median.index[median["too_fast"]].tolist() == [1, 5, 7]
    shares = too_fast_shares(frame, median)
    assert shares.loc["c", "timed"] == 2 and shares.loc["c", "fast"] == 1 and shares.loc["c", "median_seconds"] == 22.0
