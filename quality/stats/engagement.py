"""CoSimLex page-1 engagement check (Armendariz et al. 2020, §4.3): before the target words are
shown, the annotator writes two words the context inspired. Words that are not words, or the same
pair typed again and again, say the annotator did not read the context.

Letters are judged with str.isalpha, so Croatian, Slovene and Finnish letters (č, ž, ä, ö …) and
other scripts count as letters. A single CJK ideograph is a whole word and is not flagged as a
single character.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass

import pandas as pd

# Rows of the QWERTY and QWERTZ layouts (hr, sl, fi keyboards) and the number row; a word that is
# a run along one of them, either way, or such a run typed repeatedly, is a keyboard mash.
KEYBOARD_ROWS = ("1234567890", "qwertyuiop", "qwertzuiop", "asdfghjkl", "zxcvbnm", "yxcvbnm")
MIN_RUN = 3
MAX_SAME_IN_A_ROW = 4


@dataclass(frozen=True)
class Engagement:
    responses: pd.DataFrame  # index response_id: flagged (bool), reasons (list[str])
    annotators: pd.DataFrame  # index annotator_id: n_responses, n_flagged, flagged_share, keep, reasons


def _is_keyboard_run(text: str) -> bool:
    if len(text) < MIN_RUN:
        return False
    for unit in range(MIN_RUN, len(text) + 1):
        if len(text) % unit or text != text[:unit] * (len(text) // unit):
            continue
        chunk = text[:unit]
        if any(chunk in row or chunk in row[::-1] for row in KEYBOARD_ROWS):
            return True
    return False


def _is_single_character(text: str) -> bool:
    return len(text) == 1 and not unicodedata.name(text, "").startswith("CJK UNIFIED IDEOGRAPH")


def word_problems(word: object, position: int) -> list[str]:
    """Why a page-1 word is gibberish; empty when it looks like a word."""
    text = "" if word is None or (isinstance(word, float) and pd.isna(word)) else str(word).strip()
    label = "page-1 word"
    if not text:
        return [f"{label} {position} is empty"]
    folded = text.casefold()
    if not any(ch.isalpha() for ch in text):
        return [f'{label} "{text}" has no letters']
    if _is_single_character(text):
        return [f'{label} "{text}" is a single character']
    if len(folded) > 1 and len(set(folded)) == 1:
        return [f'{label} "{text}" repeats one character']
    if _is_keyboard_run(folded):
        return [f'{label} "{text}" looks like a keyboard run']
    longest = max(len(run) for run in _runs(folded))
    if longest >= MAX_SAME_IN_A_ROW:
        return [f'{label} "{text}" has the same character {longest} times in a row']
    return []


def _runs(text: str) -> list[str]:
    runs, start = [], 0
    for i in range(1, len(text) + 1):
        if i == len(text) or text[i] != text[start]:
            runs.append(text[start:i])
            start = i
    return runs


def _key(word: object) -> str:
    return "" if word is None or (isinstance(word, float) and pd.isna(word)) else str(word).strip().casefold()


def pair_problems(word_1: object, word_2: object) -> list[str]:
    """Why a response's two page-1 words fail the check: gibberish words, or the same word twice
    (compared stripped and case-insensitively)."""
    problems = word_problems(word_1, 1) + word_problems(word_2, 2)
    if not problems and _key(word_1) == _key(word_2):
        problems.append(f'page-1 words "{str(word_1).strip()}" and "{str(word_2).strip()}" are the same word')
    return problems


def check_engagement(
    frame: pd.DataFrame,
    *,
    repeat_share: float = 0.5,
    min_responses_for_repeats: int = 3,
    max_flagged_share: float = 0.5,
    response: str = "response_id",
    annotator: str = "annotator_id",
    word_1: str = "inspired_word_1",
    word_2: str = "inspired_word_2",
) -> Engagement:
    """Flag each response whose page-1 words fail `pair_problems`, and, per annotator with at least
    `min_responses_for_repeats` responses, each response whose pair (order and case ignored)
    appears in more than `repeat_share` of their responses. An annotator whose share of flagged
    responses is above `max_flagged_share` is excluded, with the reason in words. Pass only the
    responses that reached page 1 (completed ones)."""
    rows = frame.set_index(response, drop=False)
    reasons = [pair_problems(a, b) for a, b in zip(rows[word_1], rows[word_2])]
    pairs = [tuple(sorted((_key(a), _key(b)))) for a, b in zip(rows[word_1], rows[word_2])]
    owners = rows[annotator].to_numpy()
    per_owner: dict[object, list[int]] = {}
    for position, who in enumerate(owners):
        per_owner.setdefault(who, []).append(position)
    for positions in per_owner.values():
        if len(positions) < min_responses_for_repeats:
            continue
        counts = Counter(pairs[p] for p in positions)
        for p in positions:
            if counts[pairs[p]] / len(positions) > repeat_share:
                shown = ", ".join(pairs[p])
                reasons[p].append(f'page-1 pair "{shown}" repeats in {counts[pairs[p]]} of {len(positions)} responses')
    responses = pd.DataFrame({"flagged": [bool(r) for r in reasons], "reasons": reasons}, index=rows.index)
    return Engagement(responses=responses, annotators=_judge(responses, owners, max_flagged_share, annotator))


def _judge(responses: pd.DataFrame, owners, max_flagged_share: float, annotator: str) -> pd.DataFrame:
    grouped = responses["flagged"].groupby(pd.Series(owners, index=responses.index, name=annotator))
    annotators = pd.DataFrame({"n_responses": grouped.size(), "n_flagged": grouped.sum().astype(int)})
    annotators.index.name = annotator
    annotators["flagged_share"] = annotators["n_flagged"] / annotators["n_responses"]
    annotators["keep"] = ~(annotators["flagged_share"] > max_flagged_share)
    annotators["reasons"] = [
        []
        if keep
        else [
            f"page-1 words fail the engagement check in {n} of {total} responses ({share:.0%}), "
            f"above the maximum of {max_flagged_share:.0%}"
        ]
        for keep, n, total, share in zip(
            annotators["keep"], annotators["n_flagged"], annotators["n_responses"], annotators["flagged_share"]
        )
    ]
    return annotators
