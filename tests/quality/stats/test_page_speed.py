"""The per-page too-fast rule's arithmetic: each page held to a floor (one for every page, or one
per page named) and to a share of that page's median (the item's own once three answers are
timed, else the page's over every item; numpy's median as the reference); unfinished answers are
neither flagged nor counted in a median; the flagged pages of each answer with their times."""

import math

import numpy as np
import pandas as pd

from quality.stats.speed import flag_too_fast, flag_too_fast_pages, flagged_pages, too_fast_shares

FRAME = pd.DataFrame(
    [
        # response_id, annotator_id, item_id, completed, seconds (the whole answer's)
        (1, "a", 1, True, 32.0),
        (2, "b", 1, True, 13.0),
        (3, "c", 1, True, 52.0),
        (4, "d", 1, True, 70.0),
        (5, "a", 2, True, 21.0),
        (6, "b", 2, True, 29.0),
        (7, "e", 2, False, 0.5),  # not finished
    ],
    columns=["response_id", "annotator_id", "item_id", "completed", "seconds"],
)
PAGES = pd.DataFrame(
    [
        (1, "pre", 2.0),
        (1, "post", 30.0),
        (2, "pre", 10.0),
        (2, "post", 3.0),
        (3, "pre", 12.0),
        (3, "post", 40.0),
        (4, "pre", 20.0),
        (4, "post", 50.0),
        (5, "pre", 1.0),
        (5, "post", 20.0),
        (6, "pre", 9.0),
        (6, "post", 20.0),
        (7, "pre", 0.5),
        (99, "pre", 0.1),  # a response the run does not judge: left out
    ],
    columns=["response_id", "page", "seconds"],
)


def thresholds(flags: pd.DataFrame) -> dict[tuple[int, str], float]:
    return {(r, p): t for r, p, t in zip(flags["response_id"], flags["page"], flags["threshold"])}


def fast(flags: pd.DataFrame) -> list[tuple[int, str]]:
    return [(r, p) for r, p, f in zip(flags["response_id"], flags["page"], flags["too_fast"]) if f]


def test_a_share_of_each_pages_median_per_item_once_three_are_timed_else_over_every_item():
    flags = flag_too_fast_pages(FRAME, PAGES, median_share=0.5)
    assert 99 not in set(flags["response_id"])
    # item 1 has four timed answers: its own medians
    item1_pre, item1_post = np.median([2, 10, 12, 20]), np.median([30, 3, 40, 50])
    assert (item1_pre, item1_post) == (11.0, 35.0)
    # item 2 has two finished answers: the page's median over every finished answer (not 7's 0.5)
    all_pre, all_post = np.median([2, 10, 12, 20, 1, 9]), np.median([30, 3, 40, 50, 20, 20])
    assert (all_pre, all_post) == (9.5, 25.0)
    found = thresholds(flags)
    assert found[(1, "pre")] == 0.5 * item1_pre == 5.5
    assert found[(2, "post")] == 0.5 * item1_post == 17.5
    assert found[(5, "pre")] == 0.5 * all_pre == 4.75
    assert found[(6, "post")] == 0.5 * all_post == 12.5
    # 2 < 5.5, 3 < 17.5, 1 < 4.75; the unfinished 0.5 s is never flagged
    assert fast(flags) == [(1, "pre"), (2, "post"), (5, "pre")]


def test_a_mapping_checks_only_the_pages_it_names_and_the_higher_threshold_holds():
    flags = flag_too_fast_pages(FRAME, PAGES, min_seconds={"pre": 5}, median_share=0.5)
    found = thresholds(flags)
    assert found[(1, "pre")] == 5.5  # 0.5 x 11 is above the floor of 5
    assert found[(6, "pre")] == 5.0  # 0.5 x 9.5 = 4.75 is below it
    assert all(math.isnan(t) for (r, p), t in found.items() if p == "post")
    assert fast(flags) == [(1, "pre"), (5, "pre")]  # 2's post page (3 s) is not checked


def test_one_floor_for_every_page_and_the_flagged_pages_of_each_answer():
    flags = flag_too_fast_pages(FRAME, PAGES, min_seconds=4)
    assert set(flags.loc[flags["page"] == "post", "threshold"]) == {4.0}
    assert fast(flags) == [(1, "pre"), (2, "post"), (5, "pre")]
    pages = flagged_pages(flags)
    assert pages.to_dict() == {
        1: {"pre": {"seconds": 2.0, "threshold": 4.0}},
        2: {"post": {"seconds": 3.0, "threshold": 4.0}},
        5: {"pre": {"seconds": 1.0, "threshold": 4.0}},
    }
    none = flag_too_fast_pages(FRAME, PAGES)
    assert not none["too_fast"].any() and flagged_pages(none).empty
    untimed = flag_too_fast_pages(FRAME, PAGES.iloc[:0], min_seconds=4, median_share=0.5)
    assert untimed.empty and flagged_pages(untimed).empty


def test_annotators_median_seconds_are_of_their_timed_finished_answers():
    shares = too_fast_shares(FRAME, flag_too_fast(FRAME, min_seconds=20))
    assert shares.at["a", "median_seconds"] == np.median([32.0, 21.0])
    assert shares.at["b", "fast"] == 1 and shares.at["b", "median_seconds"] == np.median([13.0, 29.0])
    assert shares.at["e", "timed"] == 0 and math.isnan(shares.at["e", "median_seconds"])
