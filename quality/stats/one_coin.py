"""One-coin Dawid-Skene: one accuracy per annotator instead of a whole confusion matrix, by EM.

An annotator is right with probability `accuracy` whatever the true class, and a wrong label is
uniform over the other classes (Zhang, Chen, Zhou and Jordan, "Spectral methods meet EM", JMLR
2016, the one-coin model). One number per annotator fits from a few dozen labels where the
K x K matrix of full Dawid-Skene over-fits, at the price of missing biases toward a class.
It follows crowd-kit's `OneCoinDawidSkene` (start from the majority-vote shares; accuracy the
mean posterior of the labels given; class shares the mean posterior; probabilities clipped to
[1e-10, 1 - 1e-10]) and is compared with crowd-kit 1.4.2 in tests/quality/stats/test_aggregators.py.

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .label_codes import LabelCodes, encode_labels, item_answers, label_columns, normalise_log, vote_shares

EPS = 1e-10


@dataclass(frozen=True)
class OneCoin:
    labels: pd.DataFrame  # index item: label (most probable), posterior (its probability), tie
    posteriors: pd.DataFrame  # items x labels: P(true label | all labels), rows sum to 1
    priors: pd.Series  # label -> estimated share of items whose true label it is
    accuracy: pd.Series  # annotator -> P(their label is the true one), the annotator's competence
    iterations: int
    converged: bool
    log_likelihood: float


def one_coin_dawid_skene(labels: pd.DataFrame, *, tol: float = 1e-7, max_iter: int = 500) -> OneCoin:
    """EM from the majority-vote shares until the log-likelihood rises by less than `tol` (or
    `max_iter` rounds). Deterministic; posterior ties go to the first label and are flagged."""
    codes = encode_labels(labels, method="One-coin Dawid-Skene")
    posteriors = vote_shares(codes)
    previous, converged, rounds = -np.inf, False, 0
    while rounds < max_iter and not converged:
        rounds += 1
        priors, accuracy = _m_step(codes, posteriors)
        posteriors, log_likelihood = _e_step(codes, priors, accuracy)
        converged = abs(log_likelihood - previous) < tol
        previous = log_likelihood
    priors, accuracy = _m_step(codes, posteriors)
    chosen, table = item_answers(codes, posteriors)
    return OneCoin(
        chosen,
        table,
        pd.Series(priors, index=label_columns(codes), name="prior"),
        pd.Series(accuracy, index=codes.annotators, name="accuracy"),
        rounds,
        converged,
        previous,
    )


def _m_step(codes: LabelCodes, posteriors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class shares: mean posterior. Accuracy: the mean posterior of the labels an annotator gave."""
    n_annotators = codes.shape[1]
    right = posteriors[codes.item, codes.value]
    given = np.bincount(codes.who, minlength=n_annotators)
    accuracy = np.bincount(codes.who, weights=right, minlength=n_annotators) / np.maximum(given, 1)
    return np.clip(posteriors.mean(axis=0), EPS, None), np.clip(accuracy, EPS, 1 - EPS)


def _e_step(codes: LabelCodes, priors: np.ndarray, accuracy: np.ndarray) -> tuple[np.ndarray, float]:
    """Posterior of each item's true label; log-likelihood of all labels. Every label adds
    log((1 - s) / (K - 1)) to each class and log s - log((1 - s) / (K - 1)) more to its own."""
    n_items, _, n_values = codes.shape
    right = np.log(accuracy)
    wrong = np.log(np.clip((1 - accuracy) / max(n_values - 1, 1), EPS, None))
    joint = np.tile(np.log(priors), (n_items, 1))
    joint += np.bincount(codes.item, weights=wrong[codes.who], minlength=n_items)[:, None]
    np.add.at(joint, (codes.item, codes.value), (right - wrong)[codes.who])
    posteriors, evidence = normalise_log(joint)
    return posteriors, float(evidence.sum())
