"""GLAD, Generative model of Labels, Abilities and Difficulties (Whitehill, Ruvolo, Wu, Bergsma
and Movellan, "Whose Vote Should Count More", NIPS 2009): each annotator's expertise and each
item's difficulty, and the labels weighed by both.

Annotator i labels item j correctly with probability sigma(alpha_i * beta_j), where alpha_i is
the annotator's expertise (negative: adversarial, 0: guessing) and beta_j > 0 the item's inverse
difficulty (near 0: nobody can tell, large: anybody can); a wrong label is uniform over the
other K - 1 classes. beta_j = exp(b_j) keeps it positive. EM: the E-step gives each item's
posterior over its true class; the M-step maximises the expected log-likelihood plus Gaussian
priors alpha ~ N(1, 1) and b ~ N(1, 1) over all alphas and bs at once with scipy's truncated
Newton (TNC) and the analytic gradient. (L-BFGS-B reached the same accuracy, but its BLAS calls
ran 10-20 times slower whenever other processes shared the cores; crowd-kit stops CG after 25
steps, we let each M-step converge.) The class prior is uniform unless given. Starts from alpha = 1, b = 1 (all
annotators alike: a majority vote), as crowd-kit's `GLAD`, with which it is compared in
tests/quality/stats/test_aggregators.py.

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from .label_codes import LabelCodes, encode_labels, item_answers, normalise_log

PRIOR_MEAN = 1.0  # of alpha and of b = log beta; unit variance


@dataclass(frozen=True)
class Glad:
    labels: pd.DataFrame  # index item: label (most probable), posterior (its probability), tie
    posteriors: pd.DataFrame  # items x labels: P(true label | all labels), rows sum to 1
    expertise: pd.Series  # annotator -> alpha (their competence; 0 is guessing, < 0 adversarial)
    inverse_difficulty: pd.Series  # item -> beta > 0 (small: a hard item)
    iterations: int
    converged: bool
    objective: float  # expected log-likelihood plus log priors at the end (what EM raises)


def glad(
    labels: pd.DataFrame,
    *,
    class_prior: Sequence[float] | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> Glad:
    """EM until the objective per label rises by less than `tol` (or `max_iter` rounds).
    `class_prior`: the share of each class, in `labels.value_domain` order (uniform if None)."""
    codes = encode_labels(labels, method="TNC")
    n_items, n_annotators, n_values = codes.shape
    if n_values < 2:
        raise ValueError("GLAD needs at least two distinct labels")
    prior = np.full(n_values, 1 / n_values) if class_prior is None else np.asarray(class_prior, float)
    if prior.shape != (n_values,) or (prior <= 0).any():
        raise ValueError(f"class_prior needs {n_values} positive shares, one per label")
    log_prior = np.log(prior / prior.sum())
    point = np.full(n_annotators + n_items, PRIOR_MEAN)
    previous, converged, rounds = -np.inf, False, 0
    while rounds < max_iter and not converged:
        rounds += 1
        posteriors = _e_step(codes, point, log_prior)
        right = posteriors[codes.item, codes.value]  # P(this label is the true one)
        fitted = minimize(_negative_q, point, args=(codes, right), jac=True, method="TNC")
        point, objective = fitted.x, -float(fitted.fun) / len(codes.item)
        converged = abs(objective - previous) < tol
        previous = objective
    posteriors = _e_step(codes, point, log_prior)
    chosen, table = item_answers(codes, posteriors)
    return Glad(
        chosen,
        table,
        pd.Series(point[:n_annotators], index=codes.annotators, name="expertise"),
        pd.Series(np.exp(point[n_annotators:]), index=codes.items, name="inverse_difficulty"),
        rounds,
        converged,
        previous,
    )


def _e_step(codes: LabelCodes, point: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """Posterior of each item's true class: every label adds log((1 - sigma) / (K - 1)) to all
    classes and log sigma more than that to the class it names."""
    n_items, n_annotators, n_values = codes.shape
    x = point[codes.who] * np.exp(point[n_annotators + codes.item])
    right, wrong = log_expit(x), log_expit(-x) - np.log(n_values - 1)
    joint = np.tile(log_prior, (n_items, 1))
    joint += np.bincount(codes.item, weights=wrong, minlength=n_items)[:, None]
    np.add.at(joint, (codes.item, codes.value), right - wrong)
    return normalise_log(joint)[0]


def _negative_q(point: np.ndarray, codes: LabelCodes, right: np.ndarray) -> tuple[float, np.ndarray]:
    """Minus the expected complete log-likelihood plus log priors, and its gradient in (alpha, b).
    With c = P(label right) and x = alpha * exp(b): Q = sum c log s(x) + (1 - c) log s(-x) - ...,
    dQ/dx = c - s(x), dx/dalpha = exp(b), dx/db = x."""
    n_items, n_annotators, n_values = codes.shape
    alpha, b = point[:n_annotators], point[n_annotators:]
    beta = np.exp(b[codes.item])
    x = alpha[codes.who] * beta
    q = right * log_expit(x) + (1 - right) * (log_expit(-x) - np.log(n_values - 1))
    deviation = point - PRIOR_MEAN
    value = q.sum() - 0.5 * (deviation**2).sum()
    slope = right - expit(x)
    gradient = np.concatenate(
        [
            np.bincount(codes.who, weights=slope * beta, minlength=n_annotators),
            np.bincount(codes.item, weights=slope * x, minlength=n_items),
        ]
    )
    return -float(value), -(gradient - deviation)
