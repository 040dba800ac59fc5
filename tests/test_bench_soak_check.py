"""bench/soak_check.py, the soak's verdict: a page answered "ok" must hold its answer or one that
may have been applied after it; refused and never-sent saves excuse nothing; a stored answer
that no save carried is foreign."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from soak_check import Send, foreign_answers, lost_pages, matches  # noqa: E402


def send(answer: dict[str, str], started: float, finished: float | None, outcome: str = "ok", page: str = "relation"):
    return Send(response=7, page=page, answer=answer, started=started, finished=finished, outcome=outcome, who="a/tab1")


def test_matches_compares_every_posted_field_with_white_space_folded_and_none_for_no_answer():
    assert matches({"choice": "3"}, {"choice": 3})
    assert not matches({"choice": "3"}, {"choice": 2})
    assert matches({"choice": "none"}, {"choice": None})
    assert not matches({"choice": "2"}, {"choice": None})
    assert matches({"text": "two  words\n here"}, {"text": "two words here", "start": 4, "end": 18})
    assert not matches({"text": "two words"}, {"text": "two words here"})
    assert not matches({"relation": "other"}, None)


def test_an_ok_save_holding_its_answer_is_kept():
    sends = [send({"relation": "other"}, 1.0, 2.0)]
    assert lost_pages(sends, {7: {"relation": {"relation": "other"}}}) == []


def test_an_ok_save_whose_page_is_missing_or_holds_an_earlier_answer_is_lost():
    first, second = send({"relation": "other"}, 1.0, 2.0), send({"relation": "summarize"}, 3.0, 4.0)
    assert [x["sent"] for x in lost_pages([first], {})] == [{"relation": "other"}]
    lost = lost_pages([first, second], {7: {"relation": {"relation": "other"}}})
    assert [(x["sent"], x["stored"]) for x in lost] == [({"relation": "summarize"}, {"relation": "other"})]


def test_a_later_or_overlapping_save_may_have_replaced_the_answer():
    first = send({"relation": "other"}, 1.0, 2.0)
    later = send({"relation": "summarize"}, 3.0, 4.0)
    overlapping = send({"relation": "paraphrase"}, 0.5, 1.5)  # answered after `first` began
    cut = send({"relation": "paraphrase"}, 0.1, None, outcome="unknown")  # its connection broke
    assert lost_pages([first, later], {7: {"relation": {"relation": "summarize"}}}) == []
    assert lost_pages([first, overlapping], {7: {"relation": {"relation": "paraphrase"}}}) == []
    assert lost_pages([first, cut], {7: {"relation": {"relation": "paraphrase"}}}) == []


def test_an_earlier_refused_or_unsent_save_excuses_nothing():
    first = send({"relation": "other"}, 3.0, 4.0)
    earlier = send({"relation": "summarize"}, 1.0, 2.0)  # answered before `first` began
    refused = send({"relation": "summarize"}, 3.5, 5.0, outcome="refused")
    unsent = send({"relation": "summarize"}, 3.5, None, outcome="unsent")
    stored = {7: {"relation": {"relation": "summarize"}}}
    for other in (earlier, refused, unsent):
        assert len(lost_pages([first, other], stored)) == 1


def test_a_page_of_another_response_is_not_a_candidate():
    mine = send({"relation": "other"}, 1.0, 2.0)
    elsewhere = Send(8, "relation", {"relation": "summarize"}, 3.0, 4.0, "ok")
    stored = {7: {"relation": {"relation": "summarize"}}, 8: {"relation": {"relation": "summarize"}}}
    assert [x["response"] for x in lost_pages([mine, elsewhere], stored)] == [7]


def test_a_stored_answer_that_no_applied_save_carried_is_foreign():
    sends = [
        send({"relation": "other"}, 1.0, 2.0),
        send({"difficulty": "easy"}, 3.0, None, "unknown", "difficulty"),
        send({"choice": "1"}, 5.0, 6.0, "refused", "pre"),
    ]
    stored = {
        7: {"relation": {"relation": "other"}, "difficulty": {"difficulty": "easy"}, "pre": {"choice": 1}},
        9: {"pre": {"choice": 0}},
    }
    assert [(x["response"], x["page"]) for x in foreign_answers(sends, stored)] == [(7, "pre"), (9, "pre")]
