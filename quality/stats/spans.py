"""Results of a span label field (error spans with a severity, named entities): per item the spans
a majority marked and how many spans each label got; between annotators, span F1.

Input: the long label frame (item, annotator, value) whose value is an annotator's answer: a list
of spans {start, end, label, text} with offsets in code points of the item's text (`end`
exclusive), an empty list for "nothing to mark"; None means the annotator did not answer (no vote).

- Majority spans, by a character-level vote over the annotators who answered the item: a
  character is in the agreed spans when more than half of them marked it; its label is the one
  most of those who marked it gave (None on a tie between labels, as majority vote gives no label
  on a tie); contiguous runs of such characters with the same label become one span. The span's
  text is read from the annotators' own span texts (each agreed character was marked by someone),
  so no item text is needed.
- Span F1 between two annotators, over the items both answered, micro-averaged over those items
  (2 TP / (|A| + |B|), symmetric, so which of the two is the reference does not matter):
  * exact: a span counts as matched when the other marked the same start, end and label (the
    CoNLL-2003 / MUC "exact" match);
  * overlap: per character, with its label (the character- or token-level F1 of the NER
    literature, e.g. Tsai et al. 2006's "overlap" scores, or the partial credit of SemEval-2013
    Task 9 at character grain): TP is the characters both marked with the same label, |A| and |B|
    the characters each marked (a character one annotator marked twice with one label counts once).
  A pair whose annotators marked nothing on their shared items has no F1 (0/0), and counts for
  nothing in the field's mean, rather than as agreement. The field's figure is the mean over pairs,
  as the mean pairwise Cohen's kappa is.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .labels import clean_labels

#: the per-item columns after the field's name: agreed spans, spans marked per label, voters
ITEM_COLUMNS = ("spans", "label_counts", "n_annotators")
NO_LABEL = "(no label)"

Span = tuple[int, int, Any]  # start, end, label


@dataclass(frozen=True)
class SpanResults:
    items: pd.DataFrame  # index item (sorted): ITEM_COLUMNS
    pairs: pd.DataFrame  # annotator_a, annotator_b, n_items, exact_f1, overlap_f1
    exact_f1: float  # mean over pairs with an F1 (NaN: none)
    overlap_f1: float
    labels: dict[str, dict[str, int]]  # label -> {"marked": spans, "agreed": majority spans}


def checked_spans(value: Any, *, item: Any, annotator: Any) -> list[Mapping[str, Any]]:
    """An answer as a list of spans; ValueError naming the item and annotator when it is not one."""
    where = f"item {item!r} by annotator {annotator!r}"
    if not isinstance(value, list | tuple):
        raise ValueError(f"the spans of {where} are not a list: {value!r}")
    for span in value:
        start, end = (span.get("start"), span.get("end")) if isinstance(span, Mapping) else (None, None)
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end):
            raise ValueError(f"a span of {where} has no valid start and end: {span!r}")
    return list(value)


def majority_spans(answers: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The spans more than half of `answers` (one list per annotator who answered) marked, by the
    character-level vote of the module docstring, as {start, end, text, label} in offset order."""
    voters = len(answers)
    marked: dict[int, list[set]] = {}  # position -> each marking annotator's labels there
    letters: dict[int, Counter[str]] = {}
    for spans in answers:
        mine: dict[int, set] = {}
        for span in spans:
            text = str(span.get("text") or "")
            for position in range(span["start"], span["end"]):
                mine.setdefault(position, set()).add(span.get("label"))
                offset = position - span["start"]
                if offset < len(text):
                    letters.setdefault(position, Counter())[text[offset]] += 1
        for position, labels in mine.items():
            marked.setdefault(position, []).append(labels)
    agreed: list[dict[str, Any]] = []
    for position in sorted(p for p, who in marked.items() if 2 * len(who) > voters):
        label = _majority_label(marked[position])
        letter = letters[position].most_common(1)[0][0] if position in letters else ""
        last = agreed[-1] if agreed else None
        if last is not None and last["end"] == position and last["label"] == label:
            last["end"], last["text"] = position + 1, last["text"] + letter
        else:
            agreed.append({"start": position, "end": position + 1, "text": letter, "label": label})
    return agreed


def _majority_label(votes: list[set]) -> Any:
    counts = Counter(label for labels in votes for label in labels)
    top = counts.most_common()
    return None if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]


def _exact(spans: Sequence[Mapping[str, Any]]) -> set[Span]:
    return {(s["start"], s["end"], s.get("label")) for s in spans}


def _characters(spans: Sequence[Mapping[str, Any]]) -> set[tuple[int, Any]]:
    return {(p, s.get("label")) for s in spans for p in range(s["start"], s["end"])}


def _f1(matched: int, total: int) -> float:
    return 2 * matched / total if total else math.nan


def pair_f1(a: Sequence[Sequence[Mapping[str, Any]]], b: Sequence[Sequence[Mapping[str, Any]]]) -> tuple[float, float]:
    """Exact and overlap F1 of two annotators' answers to the same items (lists in item order)."""
    exact = [0, 0]
    overlap = [0, 0]
    for mine, theirs in zip(a, b, strict=True):
        sa, sb, ca, cb = _exact(mine), _exact(theirs), _characters(mine), _characters(theirs)
        exact[0], exact[1] = exact[0] + len(sa & sb), exact[1] + len(sa) + len(sb)
        overlap[0], overlap[1] = overlap[0] + len(ca & cb), overlap[1] + len(ca) + len(cb)
    return _f1(*exact), _f1(*overlap)


def label_name(label: Any) -> str:
    return NO_LABEL if label is None else str(label)


def span_results(frame: pd.DataFrame) -> SpanResults:
    """The per-item majority spans and label counts, and the pairwise F1 of a span field."""
    labels = clean_labels(frame)
    answers = {
        (row.item, row.annotator): checked_spans(row.value, item=row.item, annotator=row.annotator)
        for row in labels.itertuples()
    }
    by_item: dict[Any, dict[Any, list]] = {}
    for (item, annotator), spans in answers.items():
        by_item.setdefault(item, {})[annotator] = spans
    rows, marked, agreed = {}, Counter[str](), Counter[str]()
    for item in sorted(by_item):
        given = list(by_item[item].values())
        majority = majority_spans(given)
        counts = Counter(label_name(s.get("label")) for spans in given for s in spans)
        marked.update(counts)
        agreed.update(label_name(s["label"]) for s in majority)
        rows[item] = {"spans": majority, "label_counts": dict(sorted(counts.items())), "n_annotators": len(given)}
    items = pd.DataFrame.from_dict(rows, orient="index", columns=list(ITEM_COLUMNS))
    pairs = _pairs(by_item)
    return SpanResults(
        items=items,
        pairs=pairs,
        exact_f1=_mean(pairs["exact_f1"]),
        overlap_f1=_mean(pairs["overlap_f1"]),
        labels={name: {"marked": marked[name], "agreed": agreed[name]} for name in sorted(marked)},
    )


def _pairs(by_item: Mapping[Any, Mapping[Any, list]]) -> pd.DataFrame:
    annotators = sorted({who for answers in by_item.values() for who in answers}, key=str)
    rows = []
    for a, b in itertools.combinations(annotators, 2):
        shared = [answers for answers in by_item.values() if a in answers and b in answers]
        if shared:
            exact, overlap = pair_f1([s[a] for s in shared], [s[b] for s in shared])
            rows.append((a, b, len(shared), exact, overlap))
    return pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n_items", "exact_f1", "overlap_f1"])


def _mean(values: pd.Series) -> float:
    known = values.dropna()
    return float(known.mean()) if len(known) else math.nan
