"""GCRC's scores (the CCL2022 task's eval.py) and two annotators' agreement. Pure: plain values in.

Scores, as the task defines them (Tan et al. 2021 §5; CCL2022-GCRC README and eval.py):
- Task1_Acc: the share of gold questions whose predicted answer is the gold one;
- Task2_F1: the mean, over the gold options, of the character-level F1 between the option's
  predicted and gold evidence sentences, each joined into one string, after removing the
  punctuation and whitespace eval.py removes (`PUNCTUATION`); two empty strings score 1;
- Task3_Acc: the share of gold options with an error type whose predicted error type is it;
- Score: the mean of the three.

One departure, on purpose: eval.py prints that a question missing from the prediction "will
receive score 0" but for tasks 2 and 3 leaves it out of the denominator. Here it scores 0 in all
three, as printed and as the README's formulas (N = all gold options) say; `missing` counts them.
Gold questions without evidences (or error types) are left out of that task, so a file with
answers only (the adversarial-robustness derivative) gets Task1 alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

#: the characters eval.py removes before counting: ASCII and full-width punctuation, whitespace
PUNCTUATION = "+.!/_,$%^*()<>`={}?-\"':;[]|—！，。？、~@#￥…&（）：；”“【】‘’"
_REMOVED = re.compile("[\\s" + re.escape(PUNCTUATION) + "]+")


class GcrcFormatError(ValueError):
    """A prediction or gold file that cannot be scored; the message names the item and field."""


def char_f1(predicted: str, gold: str) -> float:
    """Character-level F1 (bag of characters) after removing punctuation and whitespace."""
    pred_chars, gold_chars = list(_REMOVED.sub("", predicted)), list(_REMOVED.sub("", gold))
    if not pred_chars or not gold_chars:
        return float(pred_chars == gold_chars)
    common = sum((Counter(pred_chars) & Counter(gold_chars)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_chars), common / len(gold_chars)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class GcrcScores:
    """None where the gold file has no label of that task."""

    answer_accuracy: float | None
    sf_f1: float | None
    er_accuracy: float | None
    questions: int
    sf_options: int
    er_options: int
    missing: int

    @property
    def score(self) -> float | None:
        """The CCL overall score, when all three tasks have gold labels."""
        parts = (self.answer_accuracy, self.sf_f1, self.er_accuracy)
        return None if None in parts else fmean(parts)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, Any]:
        """eval.py's keys, plus the overall score and the counts behind each figure."""
        return {
            "Task1_Acc": self.answer_accuracy,
            "Task2_F1": self.sf_f1,
            "Task3_Acc": self.er_accuracy,
            "Score": self.score,
            "questions": self.questions,
            "sf_options": self.sf_options,
            "er_options": self.er_options,
            "missing": self.missing,
        }


def items_by_id(document: Any, role: str) -> dict[str, Mapping[str, Any]]:
    """The items of a decoded released file (`{"data": [...]}`) by id; ids must be unique."""
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        raise GcrcFormatError(f'{role}: expected a JSON object with a "data" list')
    items: dict[str, Mapping[str, Any]] = {}
    for number, item in enumerate(document["data"], start=1):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise GcrcFormatError(f'{role}: item {number} of "data": needs a string "id"')
        if item["id"] in items:
            raise GcrcFormatError(f'{role}: item {number} of "data": duplicate id {item["id"]!r}')
        items[item["id"]] = item
    return items


def _option(values: Any, index: int) -> Any:
    """The prediction's entry for option `index`, or None where the list is short or absent."""
    return values[index] if isinstance(values, list) and index < len(values) else None


def _joined(sentences: Any) -> str:
    return "".join(s for s in sentences if isinstance(s, str)) if isinstance(sentences, list) else ""


def score(predicted: Mapping[str, Mapping[str, Any]], gold: Mapping[str, Mapping[str, Any]]) -> GcrcScores:
    """Score predictions against gold labels, both as `items_by_id` gives them."""
    correct: list[bool] = []
    f1s: list[float] = []
    er_hits: list[bool] = []
    missing = 0
    for item_id, truth in gold.items():
        guess = predicted.get(item_id)
        missing += guess is None
        guess = guess or {}
        if "answer" in truth:
            correct.append(guess.get("answer") == truth["answer"])
        for index, sentences in enumerate(truth.get("evidences") or []):
            predicted_sentences = _option(guess.get("evidences"), index)
            f1s.append(
                char_f1(_joined(predicted_sentences), _joined(sentences)) if predicted_sentences is not None else 0.0
            )
        for index, code in enumerate(truth.get("error_type") or []):
            if code:
                er_hits.append(_option(guess.get("error_type"), index) == code)
    return GcrcScores(
        answer_accuracy=fmean(correct) if correct else None,
        sf_f1=fmean(f1s) if f1s else None,
        er_accuracy=fmean(er_hits) if er_hits else None,
        questions=len(gold),
        sf_options=len(f1s),
        er_options=len(er_hits),
        missing=missing,
    )


# --- two annotators ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionLabels:
    """One annotator's labels of one option: evidence sentences (verbatim, in passage order),
    reasoning skill code, error reason code ("" for a true statement)."""

    evidence: tuple[str, ...]
    skill: str
    error: str


@dataclass(frozen=True)
class TwoAnnotatorAgreement:
    """Agreement per field between two annotators, over aligned options.

    Observed agreement: `evidence` (the two sentence sets are equal), `skill` (same code) and
    `error` (same code, over the options where at least one of the two gave an error reason;
    None where neither did); `overall` pools all those comparisons (the kind of figure the paper
    reports as IAA, 83.8 %). Chance-corrected: Cohen's kappa for skill and error (over the same
    options; `error_kappa` is None where `error` is), Krippendorff's alpha with MASI distance for
    the evidence sets (nltk). `evidence_f1`: the mean character-level F1 between the two
    annotators' joined evidence, as Task2_F1 computes it.
    """

    options: int
    evidence: float
    skill: float
    error: float | None
    error_options: int
    overall: float
    evidence_f1: float
    skill_kappa: float
    error_kappa: float | None
    evidence_alpha: float


def evidence_distance(first: frozenset, second: frozenset) -> float:
    """MASI distance between two evidence sets; two empty sets (an option with no supporting
    sentence) agree, where nltk's masi_distance would divide by zero."""
    if not first and not second:
        return 0.0
    return masi_distance(first, second)


def _task(pairs: Sequence[tuple[Hashable, Hashable]], distance: Any = None) -> AnnotationTask:
    data = [(coder, index, labels[coder]) for index, labels in enumerate(pairs) for coder in (0, 1)]
    return AnnotationTask(data) if distance is None else AnnotationTask(data, distance=distance)


def two_annotator_agreement(first: Sequence[OptionLabels], second: Sequence[OptionLabels]) -> TwoAnnotatorAgreement:
    """Agreement between two annotators' labels of the same options (same order, same length)."""
    if len(first) != len(second):
        raise ValueError(f"the two annotators labeled {len(first)} and {len(second)} options; they must be aligned")
    if not first:
        raise ValueError("no options to compare")
    pairs = list(zip(first, second))
    evidence_sets = [(frozenset(a.evidence), frozenset(b.evidence)) for a, b in pairs]
    skills = [(a.skill, b.skill) for a, b in pairs]
    errors = [(a.error, b.error) for a, b in pairs if a.error or b.error]
    agree_evidence = [a == b for a, b in evidence_sets]
    agree_skill = [a == b for a, b in skills]
    agree_error = [a == b for a, b in errors]
    return TwoAnnotatorAgreement(
        options=len(pairs),
        evidence=fmean(agree_evidence),
        skill=fmean(agree_skill),
        error=fmean(agree_error) if errors else None,
        error_options=len(errors),
        overall=fmean(agree_evidence + agree_skill + agree_error),
        evidence_f1=fmean(char_f1("".join(a.evidence), "".join(b.evidence)) for a, b in pairs),
        skill_kappa=_task(skills).kappa(),
        error_kappa=_task(errors).kappa() if errors else None,
        evidence_alpha=_task(evidence_sets, evidence_distance).alpha(),
    )
